/**
 * `npm run admin` in the test's process: runAdmin on a database of the
 * test's, with what it printed kept. The compiled command as a process is
 * tested once (server/admin/main.integration.test.ts).
 */
import { runAdmin } from '../admin/program.js';

export interface AdminRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function admin(databaseUrl: string, args: readonly string[], { columns }: { columns?: number } = {}): Promise<AdminRun> {
  let stdout = '';
  let stderr = '';
  const code = await runAdmin(args, {
    stdout: { write: (text: string) => (stdout += text), columns },
    stderr: { write: (text: string) => (stderr += text) },
    env: { DATABASE_URL: databaseUrl },
  });
  return { code, stdout, stderr };
}
