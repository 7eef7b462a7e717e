/**
 * How wide each column of a table may be to fit a terminal: the widest column
 * gives way first, a character at a time, down to its least width; a column
 * that must stay whole (an id to copy) has its full width as its least.
 */
export function fitColumns(natural: readonly number[], least: readonly number[], available: number): number[] {
  const widths = [...natural];
  let excess = widths.reduce((sum, width) => sum + width, 0) - available;
  while (excess > 0) {
    let widest: { index: number; width: number } | undefined;
    for (const [index, width] of widths.entries())
      if (width > (least[index] ?? 0) && (widest === undefined || width > widest.width)) widest = { index, width };
    if (widest === undefined) break; // as narrow as it can be: the terminal wraps the rest
    widths[widest.index] = widest.width - 1;
    excess -= 1;
  }
  return widths;
}
