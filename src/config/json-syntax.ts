/**
 * A JSON syntax error as a person fixing the file needs it: the line and column, the parser's
 * reason, and the line itself with a caret under the spot. JSON.parse gives only a character
 * offset ("at position 49"), or nothing at the end of the input.
 */
export function describeJsonSyntaxError(text: string, err: SyntaxError): string {
  const reason = err.message.replace(/\s*\(line \d+ column \d+\)/, '');
  const at = /\s*(?:in JSON )?at position (\d+)/.exec(reason);
  const found = at ? Number(at[1]) : /Unexpected end of JSON input/.test(reason) ? text.length : undefined;
  if (found === undefined || found > text.length) return reason;
  // Past the last character (the input ended too soon): just after it, on its line, not on a blank one below.
  const position = Math.min(found, text.trimEnd().length);
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  const column = position - before.lastIndexOf('\n');
  const source = (text.split('\n')[line - 1] ?? '').replace(/\r$/, '');
  const gutter = `${line} | `;
  // Tabs stay tabs under the caret, so it lines up however the terminal shows them.
  const pad = source.slice(0, column - 1).replace(/[^\t]/g, ' ');
  const what = at ? reason.replace(at[0], '') : reason;
  return `line ${line}, column ${column}: ${what}\n    ${gutter}${source}\n    ${' '.repeat(gutter.length)}${pad}^`;
}
