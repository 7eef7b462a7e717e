/**
 * A throwaway PostgreSQL cluster on a free loopback port: initdb into a
 * temporary directory (as the `postgres` user when run as root, since initdb
 * refuses root), started with fsync off unless asked to be durable. Used by
 * scripts/with-postgres.ts for the PostgreSQL tier, by fault tests that must
 * restart, terminate or freeze a database of their own without disturbing
 * anyone else's, and (durable, as a deployment runs it) by the bench.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExternalTool } from './external-tools.js';
import { freePort } from './ports.js';

/** The newest PostgreSQL's bin directory: POSTGRES_BIN, or /usr/lib/postgresql/<version>/bin. */
export function postgresBinaries(): string | undefined {
  const fromEnv = process.env.POSTGRES_BIN;
  if (fromEnv) return fromEnv;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  return versions.map((version) => join(root, version, 'bin')).find((bin) => existsSync(join(bin, 'initdb')));
}

export const postgresTool = (): ExternalTool => ({
  name: 'PostgreSQL binaries (in /usr/lib/postgresql/*/bin or POSTGRES_BIN)',
  present: postgresBinaries() !== undefined,
  install: 'apt-get install postgresql, or set POSTGRES_BIN',
});

/** The processes whose parent is `pid`, from /proc (field 4 of /proc/<pid>/stat, after the command in parentheses). */
function childrenOf(pid: string): string[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1] === pid;
      } catch {
        return false; // Gone meanwhile.
      }
    });
}

export interface PostgresCluster {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string;
  /** `pg_ctl restart -m fast`: every connection is ended, as in a routine restart. */
  restart(): void;
  /** Stops every process of the cluster (SIGSTOP) until thaw(): a database that hangs without a word. */
  freeze(): void;
  thaw(): void;
  /** Stops it (immediately) and removes its files. */
  remove(): void;
}

export async function startPostgresCluster(
  options: {
    maxConnections?: number;
    /** fsync on, as PostgreSQL ships: a commit waits for the disk, as SQLite's do (the bench). */
    durable?: boolean;
  } = {},
): Promise<PostgresCluster> {
  const bin = postgresBinaries();
  if (!bin) throw new Error('no PostgreSQL binaries: apt-get install postgresql, or set POSTGRES_BIN');
  const asRoot = process.getuid?.() === 0;
  const run = (tool: string, args: string[]) =>
    execFileSync(asRoot ? 'runuser' : join(bin, tool), asRoot ? ['-u', 'postgres', '--', join(bin, tool), ...args] : args, {
      stdio: 'pipe',
    });
  const directory = mkdtempSync(join(tmpdir(), 'workspace-postgres-'));
  if (asRoot) {
    const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres']).toString());
    chownSync(directory, id('-u'), id('-g'));
  }
  const data = join(directory, 'data');
  const port = await freePort();
  const settings =
    `-c listen_addresses=127.0.0.1 -p ${port} -k ${directory} -c fsync=${options.durable ? 'on' : 'off'} ` +
    `-c max_connections=${options.maxConnections ?? 200}`;
  const pgCtl = (...args: string[]) => run('pg_ctl', ['-D', data, '-l', join(directory, 'server.log'), '-w', '-o', settings, ...args]);
  /** The postmaster and its children: what SIGSTOP must reach for the whole server to hang. */
  const processes = () => {
    const postmaster = readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]!.trim();
    return [postmaster, ...childrenOf(postmaster)];
  };
  try {
    run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
    pgCtl('start');
  } catch (error) {
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    restart: () => void pgCtl('-m', 'fast', 'restart'),
    freeze: () => void execFileSync('kill', ['-STOP', ...processes()]),
    thaw: () => void execFileSync('kill', ['-CONT', ...processes()]),
    remove() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // Not started, or gone already.
      }
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
