/** The median of the bench tools' repeated measurements (the lower middle value for an even count). */
export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
