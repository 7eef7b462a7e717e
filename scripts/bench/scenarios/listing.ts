/**
 * On 100,000 users: (c) a page of 100 at a random depth, by page number and by
 * cursor; (i) every user at once, as Kasm clients ask (time to the last byte,
 * bytes on the wire plain, gzip'd and Brotli'd, RSS), and get_user's p99 while
 * 10 clients do that.
 */
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { DURATION_S, load, pick, posting, ready, rssMegabytes, SERVICE, type ScenarioOutcome, startServer } from '../kit.js';
import type { BenchRun } from './run.js';

export async function listing({ directory, large }: BenchRun): Promise<ScenarioOutcome> {
  const big = await startServer(SERVICE, { DATABASE_URL: `sqlite:${join(directory, 'users-100k.db')}` }, ready);
  const randomPage = posting('/api/public/get_users', () => ({
    ...large.credentials,
    page: 1 + Math.floor(Math.random() * 1000),
    page_size: 100,
    sort_by: 'last_name',
  }));
  const byPage = await load('(c) get_users, page 1-1000 of 100k', { url: big.url, requests: randomPage });
  // The same pages one at a time: what a page costs, without 49 others queued ahead of it.
  const pageAlone = await load('    get_users, 1 connection', { url: big.url, connections: 1, requests: randomPage });
  // The same depths by cursor: each cursor is the next_cursor of a random page, taken before the load.
  const cursors: string[] = [];
  for (let taken = 0; taken < 200; taken++) {
    const answer = await fetch(`${big.url}/api/public/get_users`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...large.credentials, page: 1 + Math.floor(Math.random() * 999), page_size: 100, sort_by: 'last_name' }),
    });
    cursors.push(((await answer.json()) as { next_cursor: string }).next_cursor);
  }
  const randomCursor = posting('/api/public/get_users', () => ({ ...large.credentials, cursor: pick(cursors), page_size: 100 }));
  const byCursor = await load('(c) get_users by cursor', { url: big.url, requests: randomCursor });
  const cursorAlone = await load('    by cursor, 1 connection', { url: big.url, connections: 1, requests: randomCursor });
  // A person's search: part of a username (user1234 finds user1234@… and user12340@… to user12349@…),
  // the first 20 found, one request at a time as a console sends them.
  const searching = posting('/api/public/get_users', () => ({
    ...large.credentials,
    search: `user${Math.floor(Math.random() * 10_000)}`,
    page_size: 20,
  }));
  const searchAlone = await load('(c) get_users search, 1 connection', { url: big.url, connections: 1, requests: searching });
  // The web console's first page of users: 25 by username, with the total, one request at a time.
  const consolePage = posting('/api/public/get_users', () => ({ ...large.credentials, page_size: 25, sort_by: 'username' }));
  const consoleAlone = await load("(c) the console's first page, 1 connection", { url: big.url, connections: 1, requests: consolePage });

  // (i) Every user at once: get_users with credentials only.
  const everyone = JSON.stringify(large.credentials);
  // Bytes as they cross the wire (node:http leaves them encoded), to the last one.
  const listEveryone = (encoding: 'identity' | 'gzip' | 'br' = 'identity') =>
    new Promise<{ ms: number; bytes: number }>((resolve, reject) => {
      const started = performance.now();
      const sent = httpRequest(
        `${big.url}/api/public/get_users`,
        { method: 'POST', headers: { 'Content-Type': 'application/json', 'Accept-Encoding': encoding } },
        (answer) => {
          let bytes = 0;
          answer.on('data', (chunk: Buffer) => (bytes += chunk.length));
          answer.on('end', () =>
            answer.statusCode === 200
              ? resolve({ ms: performance.now() - started, bytes })
              : reject(new Error(`get_users answered ${answer.statusCode}`)),
          );
          answer.on('error', reject);
        },
      );
      sent.on('error', reject);
      sent.end(everyone);
    });
  const rssBefore = rssMegabytes(big.child);
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMegabytes(big.child))), 20);
  const plain = await listEveryone();
  clearInterval(sampler);
  // The same listing compressed, as Kasm's Python clients (gzip) and browsers (br) ask for it.
  const gzipped = await listEveryone('gzip');
  const brotli = await listEveryone('br');
  // While 10 clients list everyone over and over, get_user's p99 against its p99 alone.
  const getLarge = posting('/api/public/get_user', () => ({ ...large.credentials, target_user: { user_id: pick(large.userIds) } }));
  const getAlone = await load('(i) get_user alone, 100k users', { url: big.url, connections: 10, requests: getLarge });
  let listings = 0;
  const until = performance.now() + DURATION_S * 1000;
  const listers = Array.from({ length: 10 }, async () => {
    while (performance.now() < until) {
      await listEveryone();
      listings++;
    }
  });
  const [getDuring] = await Promise.all([
    load('    get_user during 10 listings', { url: big.url, connections: 10, requests: getLarge }),
    ...listers,
  ]);
  await big.stop();

  const figures = {
    get_users_rps: byPage.rps,
    get_users_p99_ms: byPage.p99,
    get_users_p99_ms_one_connection: pageAlone.p99,
    get_users_cursor_rps: byCursor.rps,
    get_users_cursor_p99_ms: byCursor.p99,
    get_users_cursor_p99_ms_one_connection: cursorAlone.p99,
    get_users_search_p99_ms: searchAlone.p99,
    console_first_page_p99_ms: consoleAlone.p99,
    every_user_ms: Math.round(plain.ms),
    every_user_mb: Number((plain.bytes / 1e6).toFixed(1)),
    every_user_gzip_ms: Math.round(gzipped.ms),
    every_user_gzip_mb: Number((gzipped.bytes / 1e6).toFixed(1)),
    every_user_br_ms: Math.round(brotli.ms),
    every_user_br_mb: Number((brotli.bytes / 1e6).toFixed(1)),
    every_user_rss_before_mb: rssBefore,
    every_user_rss_peak_mb: rssPeak,
    every_user_rss_growth_mb: rssPeak - rssBefore,
    every_user_concurrent_listings: listings,
    get_user_p99_alone_100k_ms: getAlone.p99,
    get_user_p99_during_listings_ms: getDuring.p99,
  };
  return {
    results: [byPage, pageAlone, byCursor, cursorAlone, searchAlone, consoleAlone, getAlone, getDuring],
    comparisons: {},
    figures,
    lines: [
      `(c) get_users with a search, 20 found, over ${large.userIds.length.toLocaleString('en')} users at one connection: p50 ${searchAlone.p50} ms, p99 ${searchAlone.p99} ms (target ≤ 300 ms)`,
      `(c) the console's first page (25 users by username, with the total) over ${large.userIds.length.toLocaleString('en')} users: p50 ${consoleAlone.p50} ms, p99 ${consoleAlone.p99} ms (target ≤ 500 ms)`,
      `(i) every one of ${large.userIds.length.toLocaleString('en')} users: ${figures.every_user_ms} ms to the last byte (${figures.every_user_mb} MB), RSS ${rssBefore} → peak ${rssPeak} MB (+${figures.every_user_rss_growth_mb}); ` +
        `get_user p99 ${getAlone.p99} ms alone, ${getDuring.p99} ms during ${listings} listings by 10 clients`,
      `(i) compressed: gzip ${figures.every_user_gzip_mb} MB in ${figures.every_user_gzip_ms} ms, Brotli ${figures.every_user_br_mb} MB in ${figures.every_user_br_ms} ms (plain ${figures.every_user_mb} MB in ${figures.every_user_ms} ms)`,
    ],
  };
}
