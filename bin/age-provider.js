#!/usr/bin/env node
// Runs the compiled CLI (npm run build). Development uses `npx tsx lib/cli/main.ts`.
import { main } from '../dist/lib/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
