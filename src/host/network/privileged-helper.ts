#!/usr/bin/env node
/**
 * The only cavsim program that needs root. Reads ONE JSON operation (argv[2] or stdin), validates
 * it, executes it with argv arrays and prints a JSON result. Exit 2 on invalid input, 1 on failure.
 */
import { createCommandRunner } from '../exec/command-runner.js';
import { executeOperation } from './execute.js';
import { hostNetOperationSchema } from './operation-schema.js';

async function readInput(): Promise<string> {
  if (process.argv[2] !== undefined) return process.argv[2];
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function main(): Promise<number> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readInput());
  } catch {
    process.stderr.write('privileged-helper: input is not JSON\n');
    return 2;
  }
  const check = hostNetOperationSchema.safeParse(parsed);
  if (!check.success) {
    process.stderr.write(
      `privileged-helper: invalid operation: ${check.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}\n`,
    );
    return 2;
  }
  const result = await executeOperation(
    check.data,
    createCommandRunner((argv) => process.stderr.write(`+ ${argv.join(' ')}\n`)),
  );
  process.stdout.write(`${JSON.stringify(result)}\n`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`privileged-helper: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
