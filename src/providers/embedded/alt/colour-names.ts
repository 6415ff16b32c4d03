/** Names for colours, by hue, lightness and saturation; coarse on purpose (alt text, not a paint chart). */
export function colourName(r: number, g: number, b: number): string {
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const lightness = (max + min) / 510;
  const saturation = max === min ? 0 : (max - min) / (255 - Math.abs(max + min - 255));
  if (lightness < 0.12) return 'black';
  if (lightness > 0.92) return 'white';
  if (saturation < 0.18) return lightness < 0.4 ? 'dark grey' : lightness > 0.7 ? 'light grey' : 'grey';
  let hue = 0;
  if (max === r) hue = ((g - b) / (max - min) + 6) % 6;
  else if (max === g) hue = (b - r) / (max - min) + 2;
  else hue = (r - g) / (max - min) + 4;
  hue *= 60;
  if (hue < 15 || hue >= 345) return lightness < 0.3 ? 'dark red' : 'red';
  if (hue < 40) return lightness < 0.35 ? 'brown' : 'orange';
  if (hue < 65) return lightness < 0.3 ? 'olive' : 'yellow';
  if (hue < 160) return lightness < 0.25 ? 'dark green' : 'green';
  if (hue < 195) return 'teal';
  if (hue < 255) return lightness < 0.25 ? 'navy' : 'blue';
  if (hue < 290) return 'purple';
  return 'pink';
}
