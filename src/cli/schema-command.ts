import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { UserInputError } from '../errors.js';
import { renderFieldReference, withFieldReference } from '../scenario/field-reference.js';
import { scenarioJsonSchema } from '../scenario/json-schema.js';
import { checkWritableFolder } from '../util/writable-folder.js';

/** `cavsim schema`: the scenario JSON Schema for editors, or the field reference in Markdown. */
export function registerSchemaCommand(program: Command): void {
  program
    .command('schema')
    .description('print the scenario JSON Schema (for editors), or with --reference the field reference as Markdown')
    .option('-o, --output <file>', 'write it to this file instead of standard output')
    .option('--reference', 'the field reference (Markdown table) instead of the JSON Schema')
    .option('--update <markdown>', 'replace the field reference between the markers in this Markdown file (docs/scenario.md)')
    .option('--json', 'the JSON Schema (the default)')
    .action((opts: { output?: string; reference?: boolean; update?: string }) => {
      const schema = scenarioJsonSchema();
      if (opts.update) {
        let markdown: string;
        try {
          markdown = readFileSync(opts.update, 'utf8');
        } catch {
          throw new UserInputError(
            `--update ${opts.update}: cannot read the file`,
            [],
            'give the Markdown file that holds the field-reference markers, e.g. docs/scenario.md',
          );
        }
        writeFileSync(opts.update, withFieldReference(markdown, renderFieldReference(schema)));
        return;
      }
      const text = opts.reference ? `${renderFieldReference(schema)}\n` : `${JSON.stringify(schema, null, 2)}\n`;
      if (!opts.output) return void process.stdout.write(text);
      checkWritableFolder({ path: dirname(resolve(opts.output)), origin: `--output ${opts.output}` });
      writeFileSync(opts.output, text);
    });
}
