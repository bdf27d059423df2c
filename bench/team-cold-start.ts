// The team server's cold start on a PostgreSQL ledger, in Chromium: from spawning the built
// server (`node out/main/server.js`, what `npm run server` runs) to the first pay-ins page
// rendered (rows in the table) in a browser that kept its session cookie from an earlier visit,
// as a person reopening the team's page finds it. Before the timed start the server is run once on
// the same database and data directory to sign that person in (a finance user created for it, its
// cookie given to the browser), then stopped. The floor, in the same browser right after: a bare
// node:http server spawned the same way, serving a static page of 50 rows (bench/browser.ts).
// Target: at most 3× the floor. The first run on a database makes the key file and the first admin
// (as an operator's first setup does) in .tmp/bench/team-cold-DATABASE/, kept for later runs on the
// same database (the database gains those, one user and their sessions; nothing else is written).
//   node --import tsx bench/team-cold-start.ts --database URL [--screenshot FILE.png]
// bench/postgres.ts --cold-start runs it on the database it seeded (`npm run bench -- --engine postgres`).
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { freePort, launchBrowser } from '../test/e2e/harness';
import { prepareTeamServer, startTeamServer, TEAM_PASSWORD, teamCall, teamToken, type TeamServerProcess } from '../test/e2e/team-harness';
import { browserSession } from '../test/helpers/team';
import { processMemory, staticPageFloor } from './browser';
import { argText, ensureBenchDir, log, report, root, round, type Figure } from './lib';

/** The cold start at most this many times the static page's. */
const STATIC_RATIO = 3;
const USERNAME = 'coldstart';

/** Spawn → first pay-ins rows of the team server on `database`, beside the static page's floor. */
export async function teamColdStart(database: string, screenshot?: string): Promise<Figure[]> {
  const serverJs = path.join(root, 'out/main/server.js');
  if (!existsSync(serverJs)) throw new Error(`${serverJs} is missing: npm run bench builds it (electron-vite build)`);
  const dir = teamColdStartDir(database);
  const keyFile = path.join(dir, 'envelope.key');
  const dataDir = path.join(dir, 'data');
  const firstRun = !existsSync(keyFile);
  mkdirSync(dir, { recursive: true });
  const setup = firstRun ? await prepareTeamServer(database, dataDir, keyFile) : { database, dataDir, keyFile, port: await freePort(), notifyPort: await freePort() };
  const browser = await launchBrowser();
  let server: TeamServerProcess | undefined;
  // A caller that exits mid-run (postgres.ts on a signal or its --timeout) leaves no server behind.
  const killServer = () => {
    try {
      if (server) process.kill(server.pid, 'SIGKILL');
    } catch {
      // ended already
    }
  };
  process.once('exit', killServer);
  try {
    // The earlier visit: a finance person signed in, the browser keeps the cookie.
    server = await startTeamServer(setup);
    const admin = await teamToken(server.origin, 'alice');
    const { users } = await teamCall<{ users: { username: string }[] }>(server.origin, admin, 'team:list-users');
    if (!users.some((user) => user.username === USERNAME)) await teamCall(server.origin, admin, 'team:create-user', { username: USERNAME, displayName: 'Cold Start', role: 'finance', password: TEAM_PASSWORD });
    const [name, value] = (await browserSession(server.origin, USERNAME, TEAM_PASSWORD)).split('=') as [string, string];
    await server.stop();

    // The timed start, on a port the browser has not seen (no connection kept from the visit).
    const port = await freePort();
    const t0 = performance.now();
    server = await startTeamServer({ ...setup, port, notifyPort: await freePort() });
    const listening = performance.now() - t0;
    const context = await browser.newContext();
    await context.addCookies([{ name, value, url: server.origin }]);
    const page = await context.newPage();
    page.setDefaultTimeout(60_000);
    await page.goto(`${server.origin}/#/payins`);
    const loaded = performance.now() - t0;
    const table = page.getByRole('table', { name: 'Pay-ins' });
    await table.locator('[data-row-key]').first().waitFor();
    const rendered = performance.now() - t0;
    const rows = await table.locator('[data-row-key]').count();
    const peak = processMemory(server.pid, 'VmHWM');
    if (screenshot) await page.screenshot({ path: screenshot });
    await context.close();
    log(`team server: listening after ${round(listening)} ms, page loaded after ${round(loaded)} ms, first pay-ins page (${rows} rows) after ${round(rendered)} ms; peak RSS ${round(peak)} MB`);
    const floor = await staticPageFloor(browser);
    log(`static page from a bare node:http server: address after ${round(floor.listening)} ms, first row after ${round(floor.rendered)} ms`);
    return [
      { name: 'team server cold start to first pay-ins page (PostgreSQL)', value: round(rendered / 1000, 2), unit: 's', baseline: round(floor.rendered / 1000, 3),
        note: `listening after ${round(listening / 1000, 2)} s, page loaded after ${round(loaded / 1000, 2)} s; ${rows} rows rendered; a kept session cookie; Chromium already running; server peak RSS ${round(peak)} MB` },
      { name: 'team server cold start ÷ static page from a bare server', value: round(rendered / Math.max(1, floor.rendered), 2), unit: '×', target: { op: '<', value: STATIC_RATIO },
        note: `${round(rendered)} ms ÷ ${round(floor.rendered)} ms: a bare node:http server spawned the same way (address after ${round(floor.listening)} ms), a static page of 50 rows, the same browser (target ≤ ${STATIC_RATIO}×)` },
    ];
  } finally {
    await browser.close();
    await server?.stop();
    process.off('exit', killServer);
  }
}

/** Where the runs on `database` keep its key file, the first admin's setup and the server's data directory. */
export function teamColdStartDir(database: string): string {
  return path.join(ensureBenchDir(), `team-cold-${new URL(database).pathname.slice(1)}`);
}

if (import.meta.filename === process.argv[1]) {
  const database = argText('database', '');
  if (!database) throw new Error('usage: team-cold-start.ts --database URL');
  report(await teamColdStart(database, argText('screenshot', '') || undefined));
}
