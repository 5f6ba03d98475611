/**
 * The most vehicles a scenario may hold. Memory bounds it, not the code: the simulated runtime's
 * memory per car is in README.md's scale table, and the recorder keeps each pair's minima,
 * N(N-1)/2 of them (500k at 1000 cars). The emulated runtime holds fewer (one /24 for V2V).
 */
export const MAX_VEHICLES = 1000;
