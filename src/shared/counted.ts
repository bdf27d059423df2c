// A count in words, with the noun that agrees with it ("1 row", "2 rows"): never "1 rows".
// Plain TypeScript: main's messages and the renderer's screens say counts the same way.

/** `n` and its noun: `one` for exactly one, `many` (default: `one` + "s") otherwise; thousands grouped. */
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en')} ${n === 1 ? one : many}`;
}
