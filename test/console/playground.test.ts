import WebSocket from 'ws';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openAiAgentEnv } from '../agent/helpers.js';
import { until } from '../support/assert.js';
import { call, startFakeOpenAi, stream, tools } from '../support/fake-openai.js';
import { startFakeTwilio } from '../support/fake-twilio.js';
import { describeEachDialect, type TestServer } from '../support/harness.js';
import { ALWAYS_OPEN, sendingNumber, TOKEN, twilioEnv } from '../voice/support.js';
import { consoleClient, type ConsoleClient } from './support.js';

const fake = await startFakeTwilio('ACtest', TOKEN);
const model = await startFakeOpenAi();
afterAll(async () => {
  await fake.close();
  await model.close();
});

/** The browser's side of a simulated call: the relay's JSON protocol over the playground's WebSocket. */
async function relayAs(ts: TestServer, c: ConsoleClient, path: string, origin = ts.url) {
  const ws = new WebSocket(ts.url.replace(/^http/, 'ws') + path, { headers: { cookie: c.cookie, origin } });
  const received: { type: string; token?: string; last?: boolean; handoffData?: string }[] = [];
  ws.on('message', (d) => received.push(JSON.parse(d.toString())));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_q, res) => reject(new Error(`handshake refused: HTTP ${res.statusCode}`)));
    ws.once('error', reject);
  });
  const send = (m: object) => ws.send(JSON.stringify(m));
  /** Sends a message and answers the tokens up to `last: true` (or the `end`). */
  const answerTo = async (message: object) => {
    const from = received.length;
    send(message);
    const done = await until(
      () => received.slice(from),
      (r) => r.some((m) => (m.type === 'text' && m.last) || m.type === 'end'),
    );
    return done
      .filter((m) => m.type === 'text')
      .map((m) => m.token)
      .join('');
  };
  const say = (text: string) => answerTo({ type: 'prompt', voicePrompt: text, lang: 'en-US', last: true });
  return { ws, received, send, say, answerTo };
}

/** Rows of everything a real conversation writes: a sandbox must leave every count as it was. */
async function footprint(ts: TestServer) {
  const db = ts.server.store.db;
  const count = async (table: 'leads' | 'messages' | 'events' | 'jobs' | 'calls' | 'webhook_deliveries') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return {
    leads: await count('leads'),
    messages: await count('messages'),
    events: await count('events'),
    jobs: await count('jobs'),
    calls: await count('calls'),
    deliveries: await count('webhook_deliveries'),
    twilio: fake.requests.length,
  };
}

describeEachDialect(
  'The console playground with the scripted agent',
  (ctx) => {
    let agent: ConsoleClient;
    beforeAll(async () => {
      const acme = ctx().acme;
      expect((await acme.patch('/settings', { ...ALWAYS_OPEN, sendingNumber: sendingNumber() })).status).toBe(200);
      expect(
        (await acme.post('/customerProfiles', { name: 'play', questions: ['What is your budget?', 'When?'] })).status,
      ).toBe(201);
      expect(
        (await acme.call('PUT', '/customerProfiles/play/voice', { welcomeGreeting: 'Hello {{firstName}}!' })).status,
      ).toBe(200);
      agent = await consoleClient(ctx(), 'agent');
    });

    it('talks by text with the profile as a lead, and writes, sends and counts nothing', async () => {
      const ts = ctx();
      const before = await footprint(ts);
      const day = ts.clock.now().toISOString().slice(0, 10);
      const analytics = () => ts.acme.get(`/analytics/summary?from=${day}&to=${day}&groupBy=profile`);
      const summary = await analytics();
      expect(summary.status).toBe(200);
      const opened = await agent.call('POST', '/console/api/playground', { profile: 'play', firstName: 'Pat' });
      expect(opened.status).toBe(201);
      const id = opened.body.id;
      const first = await agent.call('POST', `/console/api/playground/${id}/messages`, { text: 'Hi, I saw your ad' });
      expect(first.status).toBe(200);
      expect(first.body.replies).toEqual(['What is your budget?']);
      const second = await agent.call('POST', `/console/api/playground/${id}/messages`, { text: 'About 5000' });
      expect(second.body.replies).toEqual(['When?']);
      expect(second.body.playground.messages.map((m) => [m.from, m.channel, m.text])).toEqual([
        ['lead', 'sms', 'Hi, I saw your ad'],
        ['agent', 'sms', 'What is your budget?'],
        ['lead', 'sms', 'About 5000'],
        ['agent', 'sms', 'When?'],
      ]);
      // A STOP is heard as on SMS, and only noted.
      const stop = await agent.call('POST', `/console/api/playground/${id}/messages`, { text: 'STOP' });
      expect(stop.body.replies).toEqual([]);
      expect(stop.body.playground.notes.map((n) => n.text)).toContain('Would opt the lead out of sms.');
      await ts.runDue();
      expect(await footprint(ts)).toEqual(before);
      expect((await analytics()).body).toEqual(summary.body);
    });

    it('a simulated call runs the relay session: greeting, streamed answers, an interruption, a spoken stop', async () => {
      const ts = ctx();
      const before = await footprint(ts);
      const id = (await agent.call('POST', '/console/api/playground', { profile: 'play', firstName: 'Sam' })).body.id;
      const placed = await agent.call('POST', `/console/api/playground/${id}/call`);
      expect(placed.status).toBe(200);
      expect(placed.body.greeting).toBe('Hello Sam!');
      const relay = await relayAs(ts, agent, placed.body.relayPath);
      relay.send({ type: 'setup', callSid: 'CApplayground' });
      const from = relay.received.length;
      expect(await relay.say('Hi there')).toBe('What is your budget? ');
      // Word by word, as a model streams: several text messages, then last: true.
      const tokens = relay.received.slice(from).filter((m) => m.type === 'text');
      expect(tokens.length).toBeGreaterThan(3);
      expect(tokens.at(-1)).toEqual({ type: 'text', token: '', last: true });
      relay.send({ type: 'interrupt', utteranceUntilInterrupt: 'What is your', durationUntilInterruptMs: 400 });
      // The lead did not hear the whole question: the agent asks it again.
      expect(await relay.answerTo({ type: 'dtmf', digit: '5' })).toBe('What is your budget? ');
      expect(await relay.say('stop calling me')).toBe('');
      const end = await until(
        () => relay.received.find((m) => m.type === 'end'),
        (m) => m !== undefined,
      );
      expect(JSON.parse(end!.handoffData!)).toEqual({ reasonCode: 'opted-out' });
      const state = await agent.call('GET', `/console/api/playground/${id}`);
      expect(state.body.messages.map((m) => [m.from, m.channel, m.text])).toEqual([
        ['agent', 'voice', 'Hello Sam!'],
        ['lead', 'voice', 'Hi there'],
        ['agent', 'voice', 'What is your'],
        ['lead', 'voice', '(pressed 5)'],
        ['agent', 'voice', 'What is your budget?'],
        ['lead', 'voice', 'stop calling me'],
        ['agent', 'voice', 'Understood. We will not call you again. Goodbye.'],
      ]);
      expect(state.body.notes.map((n) => n.text)).toContain('Would opt the lead out of voice.');
      relay.ws.close();
      expect(await footprint(ts)).toEqual(before);
    });

    it("is the user's own: another user, another site's page and no session are refused", async () => {
      const ts = ctx();
      const id = (await agent.call('POST', '/console/api/playground', { profile: 'play' })).body.id;
      const other = await consoleClient(ts, 'agent');
      expect((await other.call('GET', `/console/api/playground/${id}`)).status).toBe(404);
      expect((await other.call('POST', `/console/api/playground/${id}/messages`, { text: 'hi' })).status).toBe(404);
      await expect(relayAs(ts, other, `/console/api/playground/${id}/relay`)).rejects.toThrow('HTTP 404');
      await expect(relayAs(ts, agent, `/console/api/playground/${id}/relay`, 'https://evil.example')).rejects.toThrow(
        'HTTP 403',
      );
      await expect(
        relayAs(ts, { ...agent, cookie: 'parley_session=nope' }, `/console/api/playground/${id}/relay`),
      ).rejects.toThrow('HTTP 401');
      // A state change needs the CSRF token, as everywhere in the console.
      expect((await agent.call('POST', '/console/api/playground', { profile: 'play' }, { csrf: null })).status).toBe(
        403,
      );
      expect((await agent.call('POST', '/console/api/playground', { profile: 'nope' })).status).toBe(404);
      expect((await agent.call('DELETE', `/console/api/playground/${id}`)).status).toBe(204);
      expect((await agent.call('GET', `/console/api/playground/${id}`)).status).toBe(404);
    });
  },
  { ...twilioEnv(fake) },
);

describeEachDialect(
  'The console playground with a model',
  (ctx) => {
    let agent: ConsoleClient;
    beforeAll(async () => {
      expect((await ctx().acme.post('/customerProfiles', { name: 'modelled' })).status).toBe(201);
      agent = await consoleClient(ctx(), 'admin');
    });

    it('streams the model on a simulated call, and answers text with the text agent', async () => {
      const ts = ctx();
      const before = await footprint(ts);
      const id = (await agent.call('POST', '/console/api/playground', { profile: 'modelled', firstName: 'Mo' })).body
        .id;
      model.program('Mo-call', stream(['Sure', ',', ' Monday', ' works', '.'], { tokenMs: 30 }));
      const relay = await relayAs(ts, agent, `/console/api/playground/${id}/relay`);
      relay.send({ type: 'setup', callSid: 'CAmodel' });
      const from = relay.received.length;
      expect(await relay.say('Mo-call: can we meet?')).toBe('Sure, Monday works.');
      expect(relay.received.slice(from).filter((m) => m.type === 'text' && m.token !== '')).toHaveLength(5);
      expect(model.requestsFor('Mo-call')[0]!.body.stream).toBe(true);
      relay.ws.close();
      model.program('Mo-text', tools(call('reply', { text: 'Happy to help, Mo.' }), call('markHot')));
      const texted = await agent.call('POST', `/console/api/playground/${id}/messages`, {
        text: 'Mo-text: buying now',
      });
      expect(texted.body.replies).toEqual(['Happy to help, Mo.']);
      expect(texted.body.playground.state.isHot).toBe(true);
      expect(await footprint(ts)).toEqual(before);
    });
  },
  { ...openAiAgentEnv(model), ...twilioEnv(fake) },
);
