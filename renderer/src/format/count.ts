// A count with its noun, singular or plural: "1 run", "3 runs", "1,451 questions".
export function countOf(count: number, noun: string): string {
  return `${count.toLocaleString('en-US')} ${noun}${count === 1 ? '' : 's'}`;
}
