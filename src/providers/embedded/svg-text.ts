/**
 * Whether XML 1.0 can hold a character (its `Char` production): tab, line breaks and everything
 * from U+0020 up, except surrogates (a string iterated by code point yields only unpaired ones)
 * and the noncharacters U+FFFE and U+FFFF.
 */
const isXmlChar = (c: number) =>
  c === 0x09 || c === 0x0a || c === 0x0d || (c >= 0x20 && c < 0xd800) || (c > 0xdfff && c < 0xfffe) || c > 0xffff;

const MARKUP: Record<string, string> = { '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' };

/**
 * Text as SVG character data: markup characters escaped, and what XML cannot hold left out, so
 * no text (a prompt as the API took it, or as a magic prompt rewrote it) makes the SVG unreadable.
 */
export function svgText(text: string): string {
  let kept = '';
  for (const char of text) if (isXmlChar(char.codePointAt(0)!)) kept += MARKUP[char] ?? char;
  return kept;
}
