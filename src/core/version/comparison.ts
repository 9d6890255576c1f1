/** How far a comparison can be trusted: `heuristic` when it relied on a guessed ordering. */
export type Confidence = 'exact' | 'heuristic';

export type Order = -1 | 0 | 1;

/** The result of comparing two versions; comparators return `undefined` when they cannot. */
export interface Comparison {
  order: Order;
  confidence: Confidence;
}

export const sign = (n: number | bigint): Order => (n < 0 ? -1 : n > 0 ? 1 : 0);

/** The weaker of two confidences: one guessed step makes the whole chain a guess. */
export const weakest = (...confidences: Confidence[]): Confidence =>
  confidences.includes('heuristic') ? 'heuristic' : 'exact';
