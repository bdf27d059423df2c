/** A count with its noun, grouped as the person's locale groups numbers: "1 row", "10,000 rows". */
export function countOf(n: number, one: string, many: string): string {
  return `${n.toLocaleString()} ${n === 1 ? one : many}`;
}
