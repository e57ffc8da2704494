#!/usr/bin/env node
// The `breakerbar` executable (package.json `bin`).
import { useCompileCache } from './compile-cache.js';

// Before the rest is loaded, so that it is read from the cache (a static import would be loaded first).
useCompileCache();
const { main } = await import('./main.js');

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`breakerbar: unexpected error: ${(error as Error)?.stack ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
