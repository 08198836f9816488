import { closeSync, openSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { spawn, type ChildProcess } from 'node:child_process';
import { sql } from 'kysely';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey } from '../../src/organizations/api-keys.service.js';
import { SCOPES } from '../../src/platform/auth/scopes.js';
import { openStore } from '../../src/platform/db/connect.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { createLogger, maskPersonalData } from '../../src/platform/logger.js';
import { sleep } from '../support/assert.js';
import { clientFor, dialects, freshDatabase, type Client } from '../support/harness.js';
import { buildCli, freePort, root } from '../support/processes.js';
import { Receiver, respond } from '../support/receiver.js';
import { eventually } from '../support/webhooks.js';
import { zoneInDaytimeNow } from '../support/clock-hours.js';

describe('log masking (unit)', () => {
  it('masks E.164 numbers and email addresses in any logged string, keeping enough to tell records apart', () => {
    expect(maskPersonalData('{"msg":"The \'To\' number +14155550100 is not valid"}')).toBe(
      '{"msg":"The \'To\' number +1415***0100 is not valid"}',
    );
    expect(maskPersonalData('to ann.lee@example.com and +442079460958')).toBe('to a***@example.com and +4420***0958');
    expect(maskPersonalData('550 5.1.1 <bob+tag@mail.example.org>: rejected')).toBe(
      '550 5.1.1 <b***@mail.example.org>: rejected',
    );
    // Timestamps, ids, ports and the like are left alone.
    const plain =
      '{"level":30,"time":1732147200000,"reqId":"01a1fb77-b6bf-717f-8ea9-40384c7cbbab","msg":"request","ms":12,"address":"http://127.0.0.1:8080"}';
    expect(maskPersonalData(plain)).toBe(plain);
  });

  it('applies to every line the logger writes, including serialised errors, and redacts secrets by path', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write: (chunk, _enc, done) => {
        lines.push(String(chunk));
        done();
      },
    });
    const log = createLogger('debug', sink);
    const err = Object.assign(
      new Error("Twilio answered HTTP 400: 21211 The 'To' number +14155550123 is not a valid phone number."),
      {
        detail: 'Failing row contains (org, id, +14155550123, Your secret message body).',
      },
    );
    log
      .child({ reqId: 'r1' })
      .error(
        { err, to: 'ann@example.com', headers: { 'x-api-key': 'pk_live_secret' }, webhook: { secret: 'whsec_abc' } },
        'failed for +14155550123',
      );
    const all = lines.join('');
    expect(all).not.toMatch(/\+14155550123|ann@example\.com|pk_live_secret|whsec_abc|secret message body/);
    expect(all).toContain('+1415***0123');
    expect(all).toContain('a***@example.com');
    expect(JSON.parse(lines[0]!).err.message).toContain('+1415***0123');
  });
});

/** Twilio's REST API, answering the first message with the error Twilio really gives, which quotes the number. */
async function startTwilio(): Promise<{ url: string; server: Server }> {
  let calls = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      calls += 1;
      const params = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      if (calls === 1) {
        // A transient answer (429) that still quotes the number: a 400 is a refusal, never retried.
        res.writeHead(429, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            code: 20429,
            message: `Too many requests for the 'To' number ${params.get('To')}; try again later.`,
            status: 429,
          }),
        );
        return;
      }
      res
        .writeHead(201, { 'content-type': 'application/json' })
        .end(JSON.stringify({ sid: `SM${calls}`, status: 'queued', to: params.get('To') }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** A relay that turns the first recipient away for now the way Postfix does (the address in the reply), then accepts. */
async function startSmtp(): Promise<{ url: string; server: SMTPServer }> {
  let rcpts = 0;
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    logger: false,
    onRcptTo(address, _session, cb) {
      rcpts += 1;
      // A temporary refusal (4xx) quoting the address: a 5xx is permanent and never retried.
      if (rcpts === 1)
        return cb(
          Object.assign(new Error(`4.2.1 <${address.address}>: Recipient address rejected: Mailbox busy, try later`), {
            responseCode: 450,
          }),
        );
      cb();
    },
    onData(stream, _session, cb) {
      stream.resume();
      stream.on('end', () => cb());
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { url: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`, server };
}

const MARK = `m${Date.now().toString(36)}`;
/** Everything that must never appear in the log, with what it is. */
const secrets = new Map<string, string>();
const keep = (what: string, value: string) => {
  secrets.set(value, what);
  return value;
};

for (const dialect of dialects()) {
  describe(`what a running server logs at debug level [${dialect}]`, () => {
    let database: Awaited<ReturnType<typeof freshDatabase>>;
    let child: ChildProcess | undefined;
    let logFile: string;
    let api: Client;
    let url: string;
    const receiver = new Receiver();
    let twilio: Awaited<ReturnType<typeof startTwilio>>;
    let smtp: Awaited<ReturnType<typeof startSmtp>>;

    beforeAll(async () => {
      await buildCli();
      database = await freshDatabase(dialect);
      const store = openStore(database.url, 2);
      let key: string;
      try {
        await migrateToLatest(store);
        key = (await issueKey(store.db, 'acme', SCOPES)).key;
        // A database error that quotes the row: PostgreSQL's detail for a failing CHECK, a trigger's message on SQLite.
        if (dialect === 'postgres') {
          await sql`alter table messages add constraint no_forbidden_text check (text not like '%forbidden-body%')`.execute(
            store.db,
          );
        }
        const raise =
          dialect === 'postgres'
            ? sql`create function refuse_dnc() returns trigger language plpgsql as $$ begin raise exception 'refused to list %', new.phone; end $$`
            : undefined;
        if (raise) {
          await raise.execute(store.db);
          await sql`create trigger refuse_dnc before insert on dnc_entries for each row when (new.phone like '%9999') execute function refuse_dnc()`.execute(
            store.db,
          );
        } else {
          await sql`create trigger refuse_dnc before insert on dnc_entries when new.phone like '%9999' begin select raise(abort, 'refused to list ' || new.phone); end`.execute(
            store.db,
          );
        }
      } finally {
        await store.close();
      }
      keep('the API key', key);
      await receiver.start();
      receiver.behaviour = respond(200);
      twilio = await startTwilio();
      smtp = await startSmtp();
      const port = await freePort();
      url = `http://127.0.0.1:${port}`;
      logFile = join(
        database.url.startsWith('sqlite:') ? database.url.slice(7, -'parley.db'.length) : '/tmp',
        `parley-log-${process.pid}-${dialect}.log`,
      );
      const fd = openSync(logFile, 'w');
      child = spawn(process.execPath, ['bin/parley.js', 'serve'], {
        cwd: root,
        stdio: ['ignore', fd, fd],
        env: {
          PATH: process.env.PATH ?? '',
          DATABASE_URL: database.url,
          PORT: String(port),
          HOST: '127.0.0.1',
          LOG_LEVEL: 'debug',
          PARLEY_RATE_LIMIT: '0',
          PARLEY_WORKER_POLL_MS: '20',
          PARLEY_JOB_RETRY_SCHEDULE: '50ms,50ms,50ms',
          PARLEY_ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
          PARLEY_WEBHOOK_RETRY_SCHEDULE: '0,100ms,100ms',
          TWILIO_ACCOUNT_SID: 'AClogtest',
          TWILIO_AUTH_TOKEN: keep('the Twilio auth token', `twilio-token-${MARK}`),
          TWILIO_API_BASE_URL: twilio.url,
          SMTP_URL: smtp.url,
          PARLEY_SIGNING_SECRET: keep('the signing secret', `signing-secret-${MARK}-0123456789abcdef`),
        },
      });
      closeSync(fd);
      await eventually(
        'the server to be ready',
        async () => (await fetch(`${url}/readyz`).catch(() => undefined))?.status === 200,
        20_000,
        50,
      );
      api = clientFor(url, key);
    }, 240_000);

    afterAll(async () => {
      if (child && child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((r) => child!.once('exit', r));
      }
      await receiver.stop();
      twilio?.server.close();
      await new Promise<void>((r) => (smtp ? smtp.server.close(() => r()) : r()));
      await database?.drop();
    });

    it('never holds a key, a secret, a message body, a full phone number or email address', async () => {
      const phone = keep('a lead phone', '+14155550142');
      const email = keep('a lead email', `ann.${MARK}@example.com`);
      expect(
        (
          await api.patch('/settings', {
            sendingNumber: keep('the sending number', '+14155550199'),
            contactHours: { start: '00:00', end: '00:00' },
          })
        ).status,
      ).toBe(200);
      expect(
        (
          await api.post('/customerProfiles', {
            name: 'sales',
            openingMessage: keep('an opening message', `Hi {{firstName}}, opening-${MARK}`),
            questions: [keep('a question', `question-${MARK}?`)],
          })
        ).status,
      ).toBe(201);
      // The server is a child process on real time (no TestClock): hours lifted AND the lead placed in a zone where
      // it is day now, so the legal 08:00-21:00 where the lead is lets the sends go at whatever hour this runs.
      const created = await api.post('/leads/create', {
        firstName: 'Ann',
        phone,
        email,
        timeZone: zoneInDaytimeNow().zone,
        customerProfile: 'sales',
        additionalInfo: { note: keep('additional info', `info-${MARK}`) },
      });
      expect(created.status).toBe(200);
      const leadId = created.body.id as string;

      const hook = await api.post('/webhooks', { url: receiver.url });
      expect(hook.status).toBe(201);
      keep('a webhook secret', hook.body.secret);
      const rotated = await api.post(`/webhooks/${hook.body.id}/rotateSecret`);
      keep('a rotated webhook secret', rotated.body.secret);
      receiver.secret = rotated.body.secret;

      expect(
        (await api.post(`/leads/${leadId}/sendMessage`, { message: keep('an SMS body', `sms-body-${MARK}`) })).status,
      ).toBe(200);
      expect(
        (
          await api.post(`/leads/${leadId}/sendMessage`, {
            message: keep('an email body', `email-body-${MARK}`),
            channel: 'email',
          })
        ).status,
      ).toBe(200);
      expect(
        (
          await api.post(`/leads/${leadId}/addContext`, {
            context: keep('a context note', `context-${MARK}`),
            command: keep('a command', `send message: command-${MARK}`),
          })
        ).status,
      ).toBe(200);
      expect(
        (await api.post('/inbound', { channel: 'sms', from: phone, text: keep('an inbound text', `inbound-${MARK}`) }))
          .body.action,
      ).toBe('conversation');
      expect(
        (
          await api.post('/inbound', {
            channel: 'email',
            from: email,
            text: keep('an inbound email', `inbound-email-${MARK}`),
            subject: keep('a subject', `subject-${MARK}`),
          })
        ).status,
      ).toBe(200);

      // Errors of every kind, each carrying personal data in its request.
      const other = keep('another phone', '+14155550177');
      expect((await api.post('/leads/create', { firstName: 'Bob', phone })).status).toBe(409);
      expect(
        (
          await api.post('/leads/create', {
            firstName: 'Bob',
            phone: other,
            email: keep('a bad email', `not-an-email-${MARK}@`),
          })
        ).status,
      ).toBe(400);
      expect((await api.post('/leads/create', `{"firstName":"Bob","phone":"${other}",`)).status).toBe(400);
      expect((await api.call('POST', '/leads/create', `phone=${other}`, { 'content-type': 'text/plain' })).status).toBe(
        415,
      );
      expect((await api.get(`/leads/lookup?phone=${encodeURIComponent(other)}`)).status).toBe(404);
      expect(
        (await clientFor(url, keep('a wrong key', `pk_live_${MARK}wrongwrongwrongwrongwrongwrongwro`)).get('/leads'))
          .status,
      ).toBe(403);
      expect((await api.post('/dnc/register', { phone: keep('a refused DNC phone', '+14155559999') })).status).toBe(
        500,
      );
      if (dialect === 'postgres') {
        expect(
          (
            await api.post(`/leads/${leadId}/sendMessage`, {
              message: keep('a body the database refuses', `forbidden-body-${MARK}`),
            })
          ).status,
        ).toBe(500);
      }

      // The worker's side: a Twilio rejection quoting the number, an SMTP rejection quoting the address, retries, deliveries.
      await eventually(
        'both sends to go out after their failed first attempt',
        async () => {
          const all = (await api.get(`/leads/${leadId}/messages`)).body.messages as {
            status: string;
            channel: string;
            direction: string;
          }[];
          const out = all.filter((m) => m.direction === 'outbound' && m.channel !== 'voice');
          return out.length >= 3 && out.filter((m) => m.status === 'sent').length >= 3;
        },
        20_000,
        100,
      );
      await eventually('webhook deliveries', () => receiver.received.length >= 3, 20_000, 50);
      await sleep(300);

      const log = readFileSync(logFile, 'utf8');
      // The run did log: requests, the job failures, the 500s.
      expect(log).toMatch(/"msg":"request"/);
      expect(log).toMatch(/"msg":"job attempt failed"/);
      expect(log).toMatch(/"msg":"unhandled error"/);
      // The failures are there, masked.
      expect(log).toContain('+1415***0142');
      expect(log).toMatch(/a\*\*\*@example\.com/);
      expect(log).toContain('+1415***9999');
      for (const [value, what] of secrets) expect(log.includes(value), `the log holds ${what}: ${value}`).toBe(false);
      // Nor any number or address in full, whatever it belongs to.
      expect(log.match(/\+[1-9]\d{9,14}/g) ?? []).toEqual([]);
      expect(log.match(/[A-Za-z0-9._%+-]{2,}@[A-Za-z0-9-]+\.[A-Za-z]{2,}/g) ?? []).toEqual([]);
      expect(log).not.toMatch(/pk_live_|whsec_/);
    });
  });
}
