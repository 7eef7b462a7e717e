#!/usr/bin/env node
/**
 * The workspace-users binary: the command line (program.ts) on this process's
 * streams, environment and terminal. Exit 0 on success, 1 when an operation
 * failed, 2 on a usage error (docs/sdks.md).
 */
import { PROCESS_IO } from './io.js';
import { runCli } from './program.js';
import { EXIT, leaveQuietlyWhenReaderGoes } from '../lib/command-line.js';
import { leaveUnlessSupportedNode } from '../lib/supported-node.js';

// First, before anything can fail on a Node this does not run on.
leaveUnlessSupportedNode((code) => process.exit(code));

leaveQuietlyWhenReaderGoes(process.stdout, () => process.exit(EXIT.ok));

process.exitCode = await runCli(process.argv.slice(2), PROCESS_IO);
