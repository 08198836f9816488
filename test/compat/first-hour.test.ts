import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../support/assert.js';
import { buildCli, freePort, root } from '../support/processes.js';
import { zoneInDaytimeNow } from '../support/clock-hours.js';

/**
 * The first hour of a new user, with only the README: start the server, make
 * a key from another directory of the clone, create a lead and send it a
 * message (the hosted service's pages: docs.apten.ai/api-reference/leads/create,
 * .../send-message, .../get-messages), and see what happened, in the API and in
 * the log. Everything runs as the user runs it: the compiled `parley` command
 * (through npx) and a real `serve` process.
 */

interface LogLine {
  msg: string;
  [field: string]: unknown;
}

const run = (cmd: string, args: string[], cwd: string, env: Record<string, string>) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      cmd,
      args,
      {
        cwd,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), LOG_LEVEL: 'silent', ...env },
        timeout: 120_000,
      },
      (err, stdout, stderr) => resolve({ code: err ? 1 : 0, stdout, stderr }),
    );
  });

/** `KEY=$(npx parley keys create --org NAME | tail -n 1)`, run from src/ (any directory of the clone). */
async function createKey(org: string, env: Record<string, string>): Promise<{ key: string; stdout: string }> {
  const res = await run('npx', ['--no-install', 'parley', 'keys', 'create', '--org', org], join(root, 'src'), env);
  expect(res.code, res.stderr).toBe(0);
  return { key: res.stdout.trim().split('\n').at(-1)!, stdout: res.stdout };
}

// The server is a child process on real time: the lead is placed in a zone where it is day now (zoneInDaytimeNow).
const daytimeZone = (): { zone: string; hour: number } => zoneInDaytimeNow();

describe('docs.apten.ai/api-reference/leads/create, send-message and messages: the first hour, from the README alone', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-first-hour-'));
  const otherDir = mkdtempSync(join(tmpdir(), 'parley-first-hour-other-'));
  const env = { PARLEY_DATA_DIR: dataDir };
  let server: ChildProcess;
  let out = '';
  let base: string;
  const logs = (): LogLine[] =>
    out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as LogLine);
  const api = (path: string, key: string | undefined, method = 'GET', body?: unknown) =>
    fetch(`${base}/v1${path}`, {
      method,
      headers: {
        ...(key ? { 'x-api-key': key } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, any> }));
  async function logged(test: (l: LogLine) => boolean, ms = 10_000): Promise<LogLine> {
    const hit = await until(
      () => logs().find(test),
      (l) => l !== undefined,
      ms,
      { what: () => `such a log line in:\n${out.slice(-3000)}`, every: 50 },
    );
    return hit as LogLine;
  }

  beforeAll(async () => {
    await buildCli();
    const port = await freePort();
    server = spawn(process.execPath, ['bin/parley.js', 'serve'], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        ...env,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        PARLEY_WORKER_POLL_MS: '50',
      },
    });
    server.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    server.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const reference = await logged((l) => l.msg.startsWith('API reference: '), 60_000);
    base = String(reference.url).replace(/\/docs$/, '');
    expect(base).toBe(`http://127.0.0.1:${port}`);
  }, 300_000);

  afterAll(async () => {
    server?.kill('SIGTERM');
    await new Promise((r) => (server?.exitCode !== null ? r(null) : server.once('exit', r)));
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(otherDir, { recursive: true, force: true });
  });

  it("the README's first screen shows how to start, where to read the API, and how to put the key in $KEY", () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const firstScreen = readme.split('\n').slice(0, 45).join('\n');
    expect(firstScreen).toContain('npm start');
    expect(firstScreen).toContain('export KEY=$(npx parley keys create --org acme | tail -n 1)');
    expect(firstScreen).toContain('-H "x-api-key: $KEY"');
    expect(firstScreen).toContain('http://localhost:8080/docs');
    expect(firstScreen).toMatch(/sendMessage/);
    expect(firstScreen).toMatch(/\/messages/);
    expect(readme).not.toMatch(/\]\(\.\.\//);
  });

  it('start-up says where the API reference is and how to make a key for this database; the page is there', async () => {
    const hint = await logged((l) => l.msg.includes('npx parley keys create --org NAME'));
    expect(hint.msg).toContain(`SQLite at ${join(dataDir, 'parley.db')}`);
    const page = await fetch(`${base}/docs`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Parley API reference');
  });

  it("the README's commands, run as written (bash, curl, npx from inside the clone), end with the conversation on screen", async () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const block = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)]
      .map((m) => m[1]!)
      .find((b) => b.includes('export KEY='));
    expect(block).toBeDefined();
    const script = `set -e\n${block!.replaceAll('localhost:8080', base.replace('http://', ''))}`;
    const res = await run('bash', ['-c', script], join(root, 'src'), env);
    expect(res.code, res.stderr).toBe(0);
    const [leadId, ...rest] = res.stdout.split('\n').filter((l) => l.trim() !== '');
    expect(leadId).toMatch(/^[0-9a-f-]{36}$/);
    // curl prints each answer without a newline: the two JSON documents follow each other.
    const joined = rest.join('');
    const cut = [...joined.matchAll(/\}\{/g)]
      .map((m) => m.index! + 1)
      .find((i) => {
        try {
          JSON.parse(joined.slice(0, i));
          return true;
        } catch {
          return false;
        }
      });
    expect(cut).toBeDefined();
    const [answer, history] = [joined.slice(0, cut), joined.slice(cut)];
    expect(JSON.parse(answer)).toMatchObject({
      id: expect.any(String),
      channel: 'sms',
      status: expect.stringMatching(/^(scheduled|waiting)$/),
    });
    const messages = JSON.parse(history).messages as { content: { text: string } }[];
    expect(messages.map((m) => m.content.text)).toEqual(['Hi Ann, this is Acme.']);
  }, 120_000);

  it('a key made from another directory works; a missing or foreign key is 403, and the log says why', async () => {
    const { key, stdout } = await createKey('second', env);
    expect(stdout).toContain(`database: SQLite at ${join(dataDir, 'parley.db')}`);
    const created = await api('/leads/create', key, 'POST', { firstName: 'Ann', phone: '+14155550122' });
    expect(created).toMatchObject({ status: 200, body: { message: 'Lead created successfully.' } });

    const none = await api('/leads/lookup?phone=%2B14155550122', undefined);
    expect(none).toEqual({ status: 403, body: { message: 'Forbidden', code: 'forbidden' } });
    await logged((l) => l.msg === 'refused: no x-api-key header');

    const foreign = await createKey('acme', { PARLEY_DATA_DIR: otherDir });
    const refused = await api('/leads/lookup?phone=%2B14155550122', foreign.key);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('Forbidden');
    const line = await logged((l) => l.msg.startsWith('refused: not an active key in this database'));
    expect(line.status).toBe(403);
    // Never a key, not even a part of one, in the log.
    expect(out).not.toMatch(/pk_live_/);
  });

  it('the first sendMessage says it waits for contact hours and why; new hours release it; it is sent, logged and visible', async () => {
    const { key } = await createKey('first-send', env);
    // The lead's zone is one where it is daytime now (getting-started.md: how to try it at night).
    const { zone, hour: h } = daytimeZone();
    const leadId = (
      await api('/leads/create', key, 'POST', { firstName: 'Ann', phone: '+14155550111', timeZone: zone })
    ).body.id as string;
    // Hours that exclude the present moment where the lead is (and end by 20:00), so the wait is what this test sees, whatever the time.
    const closed = { start: `${String(h + 2).padStart(2, '0')}:00`, end: `${String(h + 3).padStart(2, '0')}:00` };
    expect((await api('/settings', key, 'PATCH', { timeZone: zone, contactHours: closed })).status).toBe(200);

    const text = 'Hi Ann, this is Parley speaking';
    const sent = await api(`/leads/${leadId}/sendMessage`, key, 'POST', { message: text });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ status: 'waiting', statusCode: 'CONTACT_HOURS', channel: 'sms' });
    expect(sent.body.statusReason).toContain(`outside contact hours ${closed.start}-${closed.end} ${zone}`);
    expect(Date.parse(sent.body.scheduledTime)).toBeGreaterThan(Date.now());
    await logged((l) => l.msg.startsWith('message waits until') && l.messageId === sent.body.id);

    expect((await api('/settings', key, 'PATCH', { contactHours: { start: '00:00', end: '23:59' } })).status).toBe(200);
    const adapterLine = await logged(
      (l) => l.messageId === sent.body.id && l.msg.includes('handed to the log adapter'),
      15_000,
    );
    expect(adapterLine).toMatchObject({ channel: 'sms', leadId, to: '+1415***0111', adapter: 'log' });
    expect(out).not.toContain(text);

    const history = await api(`/leads/${leadId}/messages`, key);
    expect(history.body.messages).toEqual([
      expect.objectContaining({
        id: sent.body.id,
        content: expect.objectContaining({ text }),
        status: 'sent',
        direction: 'outbound',
        channel: 'sms',
      }),
    ]);
  }, 60_000);

  it('a webhook to http://127.0.0.1 is refused with the setting that allows it named', async () => {
    const { key } = await createKey('hooks', env);
    const res = await api('/webhooks', key, 'POST', { url: 'http://127.0.0.1:9/hook' });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(
      'url must use https (http is allowed only with PARLEY_ALLOW_PRIVATE_WEBHOOK_URLS=true)',
    );
    expect((await api('/webhooks', key)).body.webhooks).toEqual([]);
  });
});
