// Where in the editor's text an error reported at a 1-based line and column lies. No DOM here.

/**
 * The range to mark for an error at `line`:`column` (1-based, as the service reports them;
 * columns count code points, so a character outside the BMP counts once): the word that
 * starts there, else the one character there; positions past the end of a line or of the text
 * are pulled back onto it. The range is in UTF-16 units, as editors index strings.
 */
export function errorRange(text: string, line: number, column: number): { from: number; to: number } {
  const lines = text.split('\n');
  const index = Math.min(Math.max(1, Math.floor(line)), lines.length) - 1;
  let lineStart = 0;
  for (let i = 0; i < index; i++) lineStart += lines[i]!.length + 1;
  const lineText = lines[index]!;
  let codePoints = Math.max(0, Math.floor(column) - 1);
  let offset = 0;
  while (codePoints > 0 && offset < lineText.length) {
    offset += (lineText.codePointAt(offset) ?? 0) > 0xffff ? 2 : 1;
    codePoints--;
  }
  const from = lineStart + offset;
  const word = /^[\p{L}\p{N}_]+/u.exec(lineText.slice(offset));
  const length = word
    ? word[0].length
    : offset < lineText.length
      ? (lineText.codePointAt(offset) ?? 0) > 0xffff
        ? 2
        : 1
      : 0;
  return { from, to: from + length };
}
