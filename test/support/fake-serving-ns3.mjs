#!/usr/bin/env node
// Stands in for the lock-step program in --serve mode (unit tests only): READY after each C line,
// "D -1" for each A, and on "C ... --chatter" a stray line after the run's Q.
import { createInterface } from 'node:readline';

let chatter = false;
for await (const line of createInterface({ input: process.stdin })) {
  if (line.startsWith('C')) {
    chatter = line.includes('--chatter');
    process.stdout.write('READY\n');
  } else if (line.startsWith('A')) {
    process.stdout.write('D -1\n');
  } else if (line === 'Q' && chatter) {
    process.stdout.write('stray\n');
  }
}
