#!/usr/bin/env node
// Runs the compiled CLI (npm run build). Development uses `npx tsx lib/cli/main.ts`.
import { useServerHeap } from '../dist/lib/cli/heap.js';

// The server's heap settings go first: loading the CLI's modules is what first grows V8's young generation.
if (process.argv[2] === 'serve') useServerHeap();
const { main, processIo } = await import('../dist/lib/cli/main.js');
// The composition root: the service's storage adapter is plugged in here (docs/architecture.md "Storage").
const { knexAdapter } = await import('../dist/adapters/knex.js');

process.exitCode = await main(process.argv.slice(2), { ...processIo, oidcAdapter: knexAdapter });
