/**
 * `npm run admin -- <command>`: the operator's commands (program.ts) on this
 * process's streams and environment. Exit 0 on success, 1 when a command
 * failed, 2 on a usage error.
 */
import { EXIT, leaveQuietlyWhenReaderGoes } from '../../lib/command-line.js';
import { runAdmin } from './program.js';
import { leaveUnlessSupportedNode } from '../../lib/supported-node.js';

// First, before anything can fail on a Node this does not run on.
leaveUnlessSupportedNode((code) => process.exit(code));

leaveQuietlyWhenReaderGoes(process.stdout, () => process.exit(EXIT.ok));

process.exitCode = await runAdmin(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env });
