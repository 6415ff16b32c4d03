/**
 * OCR text worth trusting: read with confidence ≥ 70 and holding at least 3 letters (alt text
 * quotes it; review's text checks count it as legible text). Whitespace folded to one line;
 * null when the reading does not count.
 */
export function usableText(result: { text: string; confidence: number }): string | null {
  const text = result.text.replace(/\s+/g, ' ').trim();
  if (result.confidence < 70 || text.replace(/[^A-Za-z]/g, '').length < 3) return null;
  return text;
}
