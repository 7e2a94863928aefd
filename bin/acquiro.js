#!/usr/bin/env node
// The `acquiro` command. Node 24 runs the TypeScript sources directly (type stripping).
// The resolution hook first; the command's modules are loaded after it (src/module-resolution.ts).
import { resolveStartupModulesFaster } from '../src/module-resolution.ts';

resolveStartupModulesFaster();

await import('../src/cli/main.ts');
