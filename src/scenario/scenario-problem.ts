import type { PathSegment } from './yaml-source.js';

/** A problem found in a scenario, located by field path (and, once located, YAML line): what every validation step returns. */
export interface ScenarioProblem {
  path: PathSegment[];
  line?: number;
  message: string;
}
