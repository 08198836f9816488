import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { issueUnsubscribeToken, verifyUnsubscribeToken } from '../../src/channels/unsubscribe-token.js';
import { issueKey } from '../../src/organizations/api-keys.service.js';
import { ConfigError, loadConfig } from '../../src/platform/config.js';
import { instanceSecret } from '../../src/platform/secrets.repository.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { MIDDAY, useRealisticHours } from '../support/clock-hours.js';
import { outboxFor } from '../support/events.js';
import {
  clientFor,
  createLead,
  describeEachDialect,
  freshDatabase,
  type Client,
  type TestServer,
} from '../support/harness.js';
import { startSmtpSink, type ReceivedMail, type SmtpSink } from '../support/smtp-sink.js';
import { statusAfterStep, waitForStatus } from '../support/messages.js';
import { TestClock } from '../support/test-clock.js';
import { until } from '../support/assert.js';

const FROM = 'Acme Sales <sales@acme.test>';
const PUBLIC_URL = 'http://127.0.0.1';
const ONE_CLICK = 'List-Unsubscribe=One-Click';

const sink = await startSmtpSink();
afterAll(() => sink.close());

let emailCounter = 0;
const uniqueEmail = () => `lead${process.pid}-${++emailCounter}-${randomBytes(3).toString('hex')}@example.test`;

async function mailTo(s: SmtpSink, address: string, ms = 10_000): Promise<ReceivedMail> {
  const found = await until(
    () => s.received.find((m) => m.rcptTo.includes(address)),
    (m) => m !== undefined,
    ms,
    { what: `mail for ${address}`, every: 20 },
  );
  return found as ReceivedMail;
}

/** The one-click URL of a received mail, moved onto the server under test (PARLEY_PUBLIC_URL is a placeholder origin). */
function oneClickUrl(mail: ReceivedMail, serverUrl: string): string {
  const header = mail.headers.get('list-unsubscribe') ?? '';
  const m = /^<(https?:\/\/[^>]+)>$/.exec(header);
  if (!m) throw new Error(`no http(s) List-Unsubscribe in ${header}`);
  const link = new URL(m[1]!);
  return `${serverUrl}${link.pathname}`;
}

const postOneClick = (url: string, body: string | undefined = ONE_CLICK) =>
  fetch(url, {
    method: 'POST',
    headers: body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });

/**
 * Sends an email to a fresh lead and answers the lead, the mail and its one-click URL on this server.
 * The organization keeps realistic contact hours (08:00-21:00) and the server's clock is put at midday:
 * the mail goes out because the gate allows it, not because the window is open around the clock.
 */
async function emailedLead(
  ts: Pick<TestServer, 'url' | 'clock' | 'acme' | 'runDue'>,
  s: SmtpSink,
  client: Client = ts.acme,
  text = 'Hello by email',
) {
  ts.clock.set(MIDDAY);
  await useRealisticHours(client);
  const email = uniqueEmail();
  const leadId = await createLead(client, { email });
  const sent = await client.post(`/leads/${leadId}/sendMessage`, { message: text, channel: 'email' });
  expect(sent.status).toBe(200);
  await statusAfterStep(ts, client, leadId, sent.body.id, (st) => st === 'sent');
  const mail = await mailTo(s, email);
  return { leadId, email, mail, url: oneClickUrl(mail, ts.url), messageId: sent.body.id as string };
}

const flip = (token: string, at: number) => token.slice(0, at) + (token[at] === 'A' ? 'B' : 'A') + token.slice(at + 1);

describe('unsubscribe tokens', () => {
  const key = randomBytes(32);
  const claims = {
    organizationId: '0190f3a0-0000-7000-8000-000000000001',
    leadId: '0190f3a0-0000-7000-8000-000000000002',
    channel: 'email' as const,
    issuedAt: new Date('2026-01-02T03:04:05.678Z'),
  };

  it('round-trips, fits a path parameter, and refuses every altered, garbled or foreign token', () => {
    const token = issueUnsubscribeToken(key, claims);
    expect(token).toMatch(/^[A-Za-z0-9_-]{96}$/);
    expect(verifyUnsubscribeToken(key, token)).toEqual(claims);
    for (let i = 0; i < token.length; i++)
      expect(verifyUnsubscribeToken(key, flip(token, i)), `char ${i}`).toBeUndefined();
    expect(verifyUnsubscribeToken(randomBytes(32), token)).toBeUndefined();
    for (const bad of [
      '',
      'abc',
      token.slice(0, -1),
      `${token}A`,
      `${token.slice(0, -2)}==`,
      'A'.repeat(96),
      token.replace(/.$/, '+'),
    ]) {
      expect(verifyUnsubscribeToken(key, bad)).toBeUndefined();
    }
    // A token whose body was re-signed by someone without the key: the MAC does not match.
    const raw = Buffer.from(token, 'base64url');
    raw[5] = raw[5]! ^ 1;
    expect(verifyUnsubscribeToken(key, raw.toString('base64url'))).toBeUndefined();
  });

  it('config: SMTP_URL must be smtp(s)://, PARLEY_SIGNING_SECRET at least 32 characters, PARLEY_EMAIL_FROM an address', () => {
    expect(loadConfig({})).toMatchObject({
      smtpUrl: null,
      emailFrom: 'Parley <no-reply@localhost>',
      signingSecret: null,
    });
    expect(() => loadConfig({ SMTP_URL: 'http://mail.example.com' })).toThrow(ConfigError);
    expect(() => loadConfig({ SMTP_URL: 'smtp://user:hunter2@' })).toThrow(/^SMTP_URL must be/);
    expect(() => loadConfig({ SMTP_URL: 'nonsense:hunter2' })).not.toThrow(/hunter2/);
    expect(() => loadConfig({ PARLEY_SIGNING_SECRET: 'short' })).toThrow(ConfigError);
    expect(() => loadConfig({ PARLEY_EMAIL_FROM: 'nobody' })).toThrow(ConfigError);
    expect(() => loadConfig({ PARLEY_EMAIL_FROM: 'a@b.test\r\nBcc: x@y.test' })).toThrow(ConfigError);
    expect(loadConfig({ SMTP_URL: 'smtps://u:p@smtp.example.com:465', PARLEY_EMAIL_FROM: FROM })).toMatchObject({
      smtpUrl: 'smtps://u:p@smtp.example.com:465',
      emailFrom: FROM,
    });
  });
});

describeEachDialect(
  'email over SMTP with one-click unsubscribe',
  (ctx) => {
    it('sends from PARLEY_EMAIL_FROM to the lead, with the text and RFC 8058 headers and footer', async () => {
      const ts = ctx();
      const { leadId, email, mail, messageId } = await emailedLead(ts, sink, ts.acme, 'Your quote is ready.');
      expect(mail.mailFrom).toBe('sales@acme.test');
      expect(mail.rcptTo).toEqual([email]);
      expect(mail.headers.get('from')).toBe(FROM);
      expect(mail.headers.get('to')).toBe(email);
      expect(mail.headers.get('subject')).toBe('Message from acme');
      expect(mail.headers.get('message-id')).toBe(`<${messageId}@acme.test>`);
      expect(mail.headers.get('list-unsubscribe-post')).toBe(ONE_CLICK);
      const header = mail.headers.get('list-unsubscribe')!;
      expect(header).toMatch(/^<http:\/\/127\.0\.0\.1\/v1\/unsubscribe\/[A-Za-z0-9_-]{139}>$/);
      const link = header.slice(1, -1);
      expect(mail.text.startsWith('Your quote is ready.\n')).toBe(true);
      expect(mail.text).toContain(`unsubscribe here: ${link}`);
      const events = await outboxFor(ts, leadId, 'message.sent');
      expect(events).toHaveLength(1);
      expect(events[0]!.data).toMatchObject({ channel: 'email', text: 'Your quote is ready.' });
    });

    it('a one-click POST unsubscribes email only, without a key, and emits one optOut with source "link"', async () => {
      const ts = ctx();
      const { leadId, email, url } = await emailedLead(ts, sink);
      const res = await postOneClick(url);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ message: 'You have been unsubscribed.' });
      const lead = (await ts.acme.get(`/leads/${leadId}`)).body;
      expect(lead.subscriptions).toEqual({ sms: 'subscribed', voice: 'subscribed', email: 'unsubscribed' });
      expect(lead.isUnsubscribed).toBe(false);
      const optOuts = await outboxFor(ts, leadId, 'optOut');
      expect(optOuts).toHaveLength(1);
      expect(optOuts[0]!.data).toMatchObject({
        leadId,
        channel: 'email',
        source: 'link',
        email,
        isDoNotContact: false,
      });

      // Again (a second click, a provider retry, an empty body): 200, nothing new.
      const again = await postOneClick(url, undefined);
      expect(again.status).toBe(200);
      expect(await again.json()).toEqual({ message: 'You have been unsubscribed.' });
      expect(await outboxFor(ts, leadId, 'optOut')).toHaveLength(1);
    });

    it('accepts the other bodies a provider may send: empty, multipart/form-data, JSON', async () => {
      const ts = ctx();
      for (const init of [
        { method: 'POST' },
        {
          method: 'POST',
          headers: { 'content-type': 'multipart/form-data; boundary=b' },
          body: `--b\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--b--\r\n`,
        },
        { method: 'POST', headers: { 'content-type': 'application/json' }, body: '' },
      ]) {
        const { leadId, url } = await emailedLead(ts, sink);
        const res = await fetch(url, init);
        expect(res.status, JSON.stringify(init.headers)).toBe(200);
        expect((await ts.acme.get(`/leads/${leadId}`)).body.subscriptions.email).toBe('unsubscribed');
      }
    });

    it('GET shows a confirm page and never unsubscribes (mail scanners prefetch links)', async () => {
      const ts = ctx();
      const { leadId, url } = await emailedLead(ts, sink);
      for (const method of ['GET', 'HEAD']) {
        const res = await fetch(url, { method });
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/^text\/html/);
        expect(res.headers.get('cache-control')).toBe('no-store');
        expect(res.headers.get('referrer-policy')).toBe('no-referrer');
        // GET shows the confirm form; HEAD, the same headers and no body.
        expect(await res.text()).toMatch(
          method === 'GET'
            ? /<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click">/
            : /^$/,
        );
      }
      expect((await ts.acme.get(`/leads/${leadId}`)).body.subscriptions.email).toBe('subscribed');
      expect(await outboxFor(ts, leadId, 'optOut')).toHaveLength(0);
      // The page's button: a browser form post, answered with a page.
      const confirmed = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
        body: ONE_CLICK,
      });
      expect(confirmed.status).toBe(200);
      expect(await confirmed.text()).toContain('You have been unsubscribed.');
      expect((await ts.acme.get(`/leads/${leadId}`)).body.subscriptions.email).toBe('unsubscribed');
    });

    it('answers 404 Not Found, changing nothing, to a tampered, garbled or forged token', async () => {
      const ts = ctx();
      const { leadId, url } = await emailedLead(ts, sink);
      const token = url.slice(url.lastIndexOf('/') + 1);
      const base = url.slice(0, url.lastIndexOf('/') + 1);

      // Another organization's lead, named in a token that keeps acme's signature.
      const betaEmail = uniqueEmail();
      const betaLead = await createLead(ts.beta, { email: betaEmail });
      const betaOrg = await ts.server.store.db
        .selectFrom('organizations')
        .select('id')
        .where('name', '=', 'beta')
        .executeTakeFirstOrThrow();
      const forged = Buffer.from(token, 'base64url');
      Buffer.from(betaOrg.id.replace(/-/g, ''), 'hex').copy(forged, 1);
      Buffer.from(betaLead.replace(/-/g, ''), 'hex').copy(forged, 17);

      for (const bad of [
        flip(token, 10),
        flip(token, 60),
        flip(token, 95),
        token.slice(0, 95),
        'not-a-token',
        forged.toString('base64url'),
      ]) {
        const post = await postOneClick(`${base}${bad}`);
        expect(post.status, bad).toBe(404);
        expect(await post.json()).toEqual({ message: 'Not Found', code: 'not_found' });
        expect((await fetch(`${base}${bad}`)).status).toBe(404);
      }
      expect((await postOneClick(`${base}${'x'.repeat(300)}`)).status).toBeGreaterThanOrEqual(400);
      expect((await ts.acme.get(`/leads/${leadId}`)).body.subscriptions.email).toBe('subscribed');
      expect((await ts.beta.get(`/leads/${betaLead}`)).body.subscriptions.email).toBe('subscribed');
      expect(await outboxFor(ts, leadId, 'optOut')).toHaveLength(0);
      expect(await outboxFor(ts, betaLead, 'optOut')).toHaveLength(0);
    });

    it('after unsubscribing by link, a further email is blocked by the gate and never reaches SMTP', async () => {
      const ts = ctx();
      const { leadId, email, url } = await emailedLead(ts, sink);
      expect((await postOneClick(url)).status).toBe(200);
      const sent = await ts.acme.post(`/leads/${leadId}/sendMessage`, { message: 'One more thing', channel: 'email' });
      const msg = await statusAfterStep(ts, ts.acme, leadId, sent.body.id, (s) => s !== 'scheduled' && s !== 'sending');
      expect(msg).toMatchObject({ status: 'blocked', statusReason: 'lead is unsubscribed from email' });
      // SMS is a separate consent and still goes out.
      const sms = await ts.acme.post(`/leads/${leadId}/sendMessage`, { message: 'By text', channel: 'sms' });
      expect(
        (await statusAfterStep(ts, ts.acme, leadId, sms.body.id, (s) => s !== 'scheduled' && s !== 'sending')).status,
      ).toBe('sent');
      expect(sink.received.filter((m) => m.rcptTo.includes(email))).toHaveLength(1);
    });

    it('a link of an erased lead answers 200 and does nothing', async () => {
      const ts = ctx();
      const { leadId, url } = await emailedLead(ts, sink);
      expect((await ts.acme.del(`/leads/${leadId}`)).status).toBe(200);
      const res = await postOneClick(url);
      expect(res.status).toBe(200);
      expect(await outboxFor(ts, leadId, 'optOut')).toHaveLength(0);
    });

    it('concurrent processes agree on one generated secret', async () => {
      const db = ctx().server.store.db;
      const name = `test_${randomBytes(4).toString('hex')}`;
      const values = await Promise.all(Array.from({ length: 8 }, () => instanceSecret(db, name)));
      expect(new Set(values).size).toBe(1);
      expect(values[0]).toMatch(/^[A-Za-z0-9_-]{43}$/);
    });
  },
  { SMTP_URL: sink.url, PARLEY_EMAIL_FROM: FROM, PARLEY_PUBLIC_URL: PUBLIC_URL, PARLEY_WORKER_POLL_MS: '20' },
);

/** A server of its own (own database, own SMTP sink), for the tests that stop things; its clock starts at MIDDAY. */
async function ownServer(
  s: SmtpSink,
  url: string,
  extra: Record<string, string> = {},
): Promise<RunningServer & { clock: TestClock }> {
  const env = {
    DATABASE_URL: url,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    PARLEY_RATE_LIMIT: '0',
    PARLEY_WORKER_POLL_MS: '20',
    SMTP_URL: s.url,
    PARLEY_EMAIL_FROM: FROM,
    PARLEY_PUBLIC_URL: PUBLIC_URL,
    ...extra,
  };
  const clock = new TestClock();
  clock.set(MIDDAY);
  return Object.assign(await startServer(loadConfig(env), { clock }), { clock });
}

describeEachDialect('email when things stop', (ctx) => {
  it('an SMTP outage is retried: the message waits (job pending, last_error kept), then goes out once the server is back', async () => {
    const own = await startSmtpSink();
    const db = await freshDatabase(ctx().dialect);
    const server = await ownServer(own, db.url, { PARLEY_JOB_RETRY_SCHEDULE: Array(40).fill('150ms').join(',') });
    try {
      const client = clientFor(server.address, (await issueKey(server.store.db, 'acme')).key);
      await useRealisticHours(client);
      const email = uniqueEmail();
      const leadId = await createLead(client, { email });
      await own.down();
      const sent = (await client.post(`/leads/${leadId}/sendMessage`, { message: 'Are you there?', channel: 'email' }))
        .body;
      const job = async () =>
        server.store.db
          .selectFrom('jobs')
          .selectAll()
          .where('payload', 'like', `%${sent.id}%`)
          .executeTakeFirstOrThrow();
      const failing = await until(job, (j) => j.attempts >= 2, 10_000, { what: 'the second attempt', every: 30 });
      expect(failing.status).toBe('pending');
      expect(failing.attempts).toBeGreaterThanOrEqual(2);
      expect(failing.last_error).toMatch(/ECONNREFUSED|connect/i);
      expect((await client.get(`/leads/${leadId}/messages`)).body.messages[0]!.status).toBe('sending');
      expect(own.received).toHaveLength(0);

      await own.up();
      // This server retries on its own real-time schedule (the point: an outage is retried): wait for it.
      await waitForStatus(client, leadId, sent.id, (s) => s === 'sent');
      expect((await mailTo(own, email)).text).toContain('Are you there?');
      expect(own.received).toHaveLength(1);
      // The message is marked sent first; the runner closes the job right after.
      expect((await until(job, (j) => j.status === 'done', 5000, { what: 'the job closed', every: 20 })).status).toBe(
        'done',
      );
    } finally {
      await server.stop();
      await own.close();
      await db.drop();
    }
  });

  it('the generated signing secret is kept in the database: a link issued before a restart works after it', async () => {
    const own = await startSmtpSink();
    const db = await freshDatabase(ctx().dialect);
    let server: RunningServer | undefined = await ownServer(own, db.url);
    try {
      const key = (await issueKey(server.store.db, 'acme')).key;
      const fake = {
        url: server.address,
        acme: clientFor(server.address, key),
        clock: (server as RunningServer & { clock: TestClock }).clock,
        // biome-ignore lint/style/noNonNullAssertion: this server runs its worker (PARLEY_WORKER is not turned off)
        runDue: () => server!.worker!.runDue(),
      };
      const { leadId, url } = await emailedLead(fake, own, fake.acme);
      const path = new URL(url).pathname;
      await server.stop();

      server = await ownServer(own, db.url);
      const client = clientFor(server.address, key);
      const res = await postOneClick(`${server.address}${path}`);
      expect(res.status).toBe(200);
      expect((await client.get(`/leads/${leadId}`)).body.subscriptions.email).toBe('unsubscribed');
      // 'address-digest' (the key of suppression digests) always exists; only the link key is at stake here.
      const secrets = await server.store.db
        .selectFrom('instance_secrets')
        .selectAll()
        .where('name', '!=', 'address-digest')
        .execute();
      expect(secrets.map((s) => s.name)).toEqual(['unsubscribe_signing']);
    } finally {
      await server?.stop();
      await own.close();
      await db.drop();
    }
  });

  it('with PARLEY_SIGNING_SECRET set, links are signed with it and no secret is generated', async () => {
    const own = await startSmtpSink();
    const db = await freshDatabase(ctx().dialect);
    const secret = randomBytes(32).toString('base64');
    const server = await ownServer(own, db.url, { PARLEY_SIGNING_SECRET: secret });
    try {
      const key = (await issueKey(server.store.db, 'acme')).key;
      const fake = {
        url: server.address,
        acme: clientFor(server.address, key),
        clock: server.clock,
        // biome-ignore lint/style/noNonNullAssertion: this server runs its worker (PARLEY_WORKER is not turned off)
        runDue: () => server.worker!.runDue(),
      };
      const { url } = await emailedLead(fake, own, fake.acme);
      expect((await postOneClick(url)).status).toBe(200);
      expect(
        await server.store.db
          .selectFrom('instance_secrets')
          .selectAll()
          .where('name', '!=', 'address-digest')
          .execute(),
      ).toEqual([]);
    } finally {
      await server.stop();
      await own.close();
      await db.drop();
    }
  });
});
