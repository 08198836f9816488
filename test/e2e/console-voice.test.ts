import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { until } from '../support/assert.js';
import { DAYTIME } from '../support/clock-hours.js';
import { connectRelay } from '../support/fake-relay.js';
import { startFakeTwilio, type FakeTwilio } from '../support/fake-twilio.js';
import { createLead, uniquePhone } from '../support/harness.js';
import { ALWAYS_OPEN, callback, sendingNumber, TOKEN, twilioEnv, twimlAttr } from '../voice/support.js';
import {
  describeWithBrowser,
  launchChromium,
  screenshot,
  signedIn,
  startConsoleServer,
  type ConsoleServer,
  seriousViolations,
} from './support.js';

describeWithBrowser('console in the browser: live calls and the playground', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let fake: FakeTwilio;

  beforeAll(async () => {
    fake = await startFakeTwilio('ACtest', TOKEN);
    [server, browser] = await Promise.all([
      startConsoleServer('sqlite', { ...twilioEnv(fake), PARLEY_CONSOLE_EVENTS_POLL_MS: '100' }),
      launchChromium(),
    ]);
    // Daytime where the lead's (California) number is: the night floor would hold the call.
    server.ts.clock.set(DAYTIME);
    const acme = server.ts.acme;
    expect((await acme.patch('/settings', { ...ALWAYS_OPEN, sendingNumber: sendingNumber() })).status).toBe(200);
    expect(
      (await acme.post('/customerProfiles', { name: 'callers', questions: ['What is your budget?', 'When?'] })).status,
    ).toBe(201);
    expect(
      (
        await acme.call('PUT', '/customerProfiles/callers/voice', {
          welcomeGreeting: 'Hi {{firstName}}, it is Parley.',
        })
      ).status,
    ).toBe(200);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await fake?.close();
  });

  it('"Call now" dials through the gate, and the lead page shows the call live as the relay peer talks', async () => {
    const id = await createLead(server.ts.acme, {
      firstName: 'Cara',
      lastName: 'Caller',
      phone: uniquePhone(),
      customerProfile: 'callers',
      isAiOn: true,
    });
    const { context, page } = await signedIn(browser, server, server.users.agent);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`/console/leads/${id}`);
    await page.getByRole('heading', { name: 'Cara Caller' }).waitFor();
    await page.getByRole('button', { name: 'Call now' }).click();
    await page.getByText('Calling: the agent talks with the lead.').waitFor();

    // Twilio's side: the call Parley placed, then ConversationRelay connecting to its WebSocket.
    const placed = await until(
      () => fake.accepted('Calls', (p) => p.To !== undefined && (p.Twiml?.includes('Cara') ?? false)),
      (c) => c.length === 1,
    );
    const twiml = placed[0]!.params.Twiml!;
    const relay = await connectRelay(server.ts.url, twimlAttr(twiml, 'ConversationRelay', 'url')!, TOKEN);
    relay.setup(placed[0]!.sid!);
    expect(await relay.say('Hello, who is this?')).toBe('What is your budget? ');

    const panel = page.getByRole('region', { name: 'Live call transcript' });
    await panel.getByRole('heading', { name: 'Call in progress' }).waitFor();
    const lines = panel.getByRole('listitem');
    await expect
      .poll(() => lines.allTextContents(), { timeout: 15_000 })
      .toEqual(['Agent: Hi Cara, it is Parley.', 'Lead: Hello, who is this?', 'Agent: What is your budget?']);
    // The lead spoke over the answer: the panel shows what was heard, in place of what was meant.
    relay.send({ type: 'interrupt', utteranceUntilInterrupt: 'What is your', durationUntilInterruptMs: 600 });
    await expect.poll(() => lines.nth(2).textContent(), { timeout: 15_000 }).toBe('Agent: What is your');
    expect(await seriousViolations(page, '.live-call')).toEqual([]);
    await screenshot(page, 'lead-live-call');

    relay.close();
    const status = await callback(server.ts, placed[0]!.params.StatusCallback!, {
      CallSid: placed[0]!.sid!,
      CallStatus: 'completed',
      CallDuration: '31',
    });
    expect(status.status).toBe(200);
    await panel.getByRole('heading', { name: 'Call ended' }).waitFor({ timeout: 15_000 });
    expect(errors).toEqual([]);
    await context.close();
  });

  it('the playground talks to a profile by text and as a simulated call, and creates no lead', async () => {
    const db = server.ts.server.store.db;
    const count = async () =>
      Number(
        (
          await db
            .selectFrom('leads')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const leadsBefore = await count();
    const callsBefore = fake.accepted('Calls').length;
    const { context, page } = await signedIn(browser, server, server.users.agent);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto('/console/playground');
    await page.getByRole('heading', { name: 'Playground' }).waitFor();
    await page.getByLabel('Profile').selectOption('callers');
    await page.getByLabel("The lead's first name").fill('Pia');
    await page.getByRole('button', { name: 'Start', exact: true }).click();

    const thread = page.getByRole('list', { name: 'Playground conversation' });
    await page.getByLabel('Write as the lead').fill('Hi, I saw your ad');
    await page.getByRole('button', { name: 'Send text' }).click();
    await thread.getByText('What is your budget?').waitFor();

    await page.getByRole('button', { name: 'Start simulated call' }).click();
    await page.getByText('Call in progress: the agent greeted with "Hi Pia, it is Parley."').waitFor();
    await page.getByLabel('Say as the lead').fill('About five thousand');
    await page.getByRole('button', { name: 'Say', exact: true }).click();
    // Spoken word by word, then stored: the thread shows the call's turns after the text ones.
    await expect
      .poll(() => thread.locator('.msg:not(.speaking) .msg-text').allTextContents(), { timeout: 15_000 })
      .toEqual(['Hi, I saw your ad', 'What is your budget?', 'Hi Pia, it is Parley.', 'About five thousand', 'When?']);
    await page.getByRole('button', { name: 'Press 1' }).click();
    await expect
      .poll(() => thread.locator('.msg:not(.speaking) .msg-text').allTextContents(), { timeout: 15_000 })
      .toContain('(pressed 1)');
    expect(await seriousViolations(page, '#main')).toEqual([]);
    await screenshot(page, 'playground');

    await page.getByLabel('Say as the lead').fill('stop calling me');
    await page.getByRole('button', { name: 'Say', exact: true }).click();
    await page.getByText('Call ended (opted-out).').waitFor({ timeout: 15_000 });
    await page.getByText('Would opt the lead out of voice.').waitFor();
    expect(await count()).toBe(leadsBefore);
    expect(fake.accepted('Calls')).toHaveLength(callsBefore);
    expect(errors).toEqual([]);
    await context.close();
  });
});
