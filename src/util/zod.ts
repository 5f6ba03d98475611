import type * as zod from 'zod';
import { requireCjs } from './require-cjs.js';

/**
 * zod, from its CommonJS build: zod is about 95 modules whichever entry point is imported (each
 * loads its ~60 locales), and Node 20 keeps compiled code only for CommonJS (util/code-cache.ts),
 * with which zod loads in about two thirds of the time. Every module takes zod from here, so there
 * is one zod in the process, never its two builds side by side.
 */
export const z: typeof zod.z = (requireCjs('zod') as typeof zod).z;

/** The types cavsim names as `z.…`; a namespace of types only, so it merges with the value above. */
export declare namespace z {
  export type infer<T> = zod.infer<T>;
  export type input<T> = zod.input<T>;
  export type output<T> = zod.output<T>;
  export type ZodType<Output = unknown, Input = unknown> = zod.ZodType<Output, Input>;
  export namespace core {
    export type $ZodIssue = zod.core.$ZodIssue;
    export type $ZodType = zod.core.$ZodType;
  }
}
