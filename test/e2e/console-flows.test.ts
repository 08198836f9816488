import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { until } from '../support/assert.js';
import { createLead, uniquePhone } from '../support/harness.js';
import { Receiver } from '../support/receiver.js';
import { registerEndpoint } from '../support/webhooks.js';
import {
  describeWithBrowser,
  launchChromium,
  screenshot,
  seriousViolations,
  signedIn,
  startConsoleServer,
  type ConsoleServer,
} from './support.js';

describeWithBrowser('console in the browser: an operator works a conversation', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startConsoleServer(), launchChromium()]);
    ({ page } = await signedIn(browser, server, server.users.admin));
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const inbound = async (phone: string, text: string) => {
    const res = await server.ts.acme.post('/inbound', { channel: 'sms', from: phone, text });
    expect(res.status).toBe(200);
    return res.body.leadId as string;
  };
  const aiState = () => page.locator('.ai-state strong').textContent();
  const lead = async (id: string) => (await server.ts.acme.get(`/leads/${id}`)).body;

  it("logs in through the form, and a wrong password is refused with the server's message", async () => {
    const { context, page: p } = await (async () => {
      const context = await browser.newContext({ baseURL: server.ts.url });
      return { context, page: await context.newPage() };
    })();
    await p.goto('/console/');
    await p.getByLabel('Email').fill(server.users.agent.email);
    await p.getByLabel('Password').fill('not the password at all');
    await p.getByRole('button', { name: 'Log in' }).click();
    await expect
      .poll(() => p.getByRole('alert').textContent(), { timeout: 15_000 })
      .toContain('Invalid email or password');
    await p.getByLabel('Password').fill(server.users.agent.password);
    await p.getByRole('button', { name: 'Log in' }).click();
    await p.getByRole('heading', { name: 'Inbox' }).waitFor();
    expect(await p.getByText(server.users.agent.email).count()).toBe(1);
    await context.close();
  });

  it('shows an inbound message live on the lead page, without a reload', async () => {
    const phone = uniquePhone();
    const id = await createLead(server.ts.acme, { firstName: 'Leo', lastName: 'Live', phone });
    await page.goto(`/console/leads/${id}`);
    await page.getByRole('heading', { name: 'Leo Live' }).waitFor();
    await page.waitForTimeout(300); // the event stream is open
    await inbound(phone, 'Also, do you deliver on Saturdays?');
    await page.locator('.thread').getByText('Also, do you deliver on Saturdays?').waitFor({ timeout: 20_000 });
  });

  it('shows an inbound message live in the inbox, newest activity first, then opens the lead', async () => {
    const phone = uniquePhone();
    const id = await createLead(server.ts.acme, { firstName: 'Livia', lastName: 'Stream', phone });
    await page.goto('/console/');
    await page.getByRole('heading', { name: 'Inbox' }).waitFor();
    await page.getByText(/conversations?, \d+ unread/).waitFor();
    // No message yet: no conversation to list.
    expect(await page.getByText('Livia Stream').count()).toBe(0);
    await page.waitForTimeout(300); // the event stream is open
    await inbound(phone, 'Is the blue one still available?');
    await page.getByText('Is the blue one still available?').waitFor({ timeout: 20_000 });
    expect(await page.locator('.inbox li').first().textContent()).toContain('Livia Stream');
    expect(await page.locator('.inbox li').first().textContent()).toContain('unread');

    await page.getByRole('link', { name: /Livia Stream/ }).click();
    await page.getByRole('heading', { name: 'Livia Stream' }).waitFor();
    expect(page.url()).toContain(`/console/leads/${id}`);
  });

  it('a human reply pauses the AI, and the AI can be turned back on', async () => {
    const phone = uniquePhone();
    const id = await createLead(server.ts.acme, { firstName: 'Rhea', lastName: 'Reply', phone, isAiOn: true });
    await page.goto(`/console/leads/${id}`);
    await expect.poll(() => aiState(), { timeout: 15_000 }).toBe('on');
    await page.getByLabel('Reply', { exact: true }).fill('Hi Rhea, this is Sam from the team.');
    await page.getByRole('button', { name: 'Send reply' }).click();
    await expect.poll(() => aiState(), { timeout: 15_000 }).toBe('off');
    await page.locator('.thread').getByText('Hi Rhea, this is Sam from the team.').waitFor();
    expect((await lead(id)).isAiOn).toBe(false);
    const sent = (await server.ts.acme.get(`/leads/${id}/messages`)).body.messages as {
      content: { text: string };
      isAiGenerated: boolean;
    }[];
    expect(sent.some((m) => m.content.text === 'Hi Rhea, this is Sam from the team.' && !m.isAiGenerated)).toBe(true);

    await page.getByRole('button', { name: 'Turn AI on' }).click();
    await expect.poll(() => aiState(), { timeout: 15_000 }).toBe('on');
    expect((await lead(id)).isAiOn).toBe(true);
    await page.getByRole('button', { name: 'Turn AI off' }).click();
    await expect.poll(() => aiState(), { timeout: 15_000 }).toBe('off');
    expect((await lead(id)).isAiOn).toBe(false);
  });

  it('asks before unsubscribing; after unsubscribing sms the reply box refuses, with the reason', async () => {
    const id = await createLead(server.ts.acme, { firstName: 'Uma', lastName: 'Unsub', phone: uniquePhone() });
    await page.goto(`/console/leads/${id}`);
    const box = page.getByLabel('Reply', { exact: true });
    expect(await box.isEnabled()).toBe(true);
    // Cancelled: the question was asked, and nothing changed.
    const asked = new Promise<string>((done) =>
      page.once('dialog', (d) => {
        done(d.message());
        void d.dismiss();
      }),
    );
    await page.getByRole('button', { name: 'Unsubscribe sms' }).click();
    expect(await asked).toMatch(/^Unsubscribe this lead from sms\?/);
    expect((await lead(id)).subscriptions.sms).toBe('subscribed');
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Unsubscribe sms' }).click();
    await page.getByText(/unsubscribed from SMS/).waitFor();
    // The feedback stands next to the control that caused it.
    await page
      .locator('.sub-row')
      .filter({ hasText: 'sms:' })
      .getByRole('status')
      .filter({ hasText: 'Unsubscribed from sms.' })
      .waitFor();
    await screenshot(page, 'lead-unsubscribed-confirmed');
    expect(await box.isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Send reply' }).isDisabled()).toBe(true);
    expect((await lead(id)).subscriptions.sms).toBe('unsubscribed');
  });

  it('shows on the inbox row which channels a lead opted out of, and the DNC list', async () => {
    const [stopPhone, dncPhone] = [uniquePhone(), uniquePhone()];
    await createLead(server.ts.acme, {
      firstName: 'Stella',
      lastName: 'Stop',
      phone: stopPhone,
      email: `stella.${stopPhone.slice(-7)}@example.com`,
    });
    await createLead(server.ts.acme, { firstName: 'Dora', lastName: 'Dnc', phone: dncPhone });
    await inbound(stopPhone, 'STOP');
    await inbound(dncPhone, 'hello there');
    expect((await server.ts.acme.post('/dnc/register', { phone: dncPhone })).status).toBe(200);
    await page.goto('/console/');
    const row = (name: string) =>
      page.getByRole('list', { name: 'Conversations' }).getByRole('listitem').filter({ hasText: name });
    await row('Stella Stop').getByText('SMS opted out').waitFor();
    // Only the channel the lead stopped: voice and email stay open, so they are not flagged.
    expect(
      await row('Stella Stop')
        .getByText(/voice opted out|email opted out|do not contact/)
        .count(),
    ).toBe(0);
    await row('Dora Dnc').getByText('do not contact').waitFor();
    expect(
      await row('Dora Dnc')
        .getByText(/opted out/)
        .count(),
    ).toBe(0);
    // The lead's own page says the same under its name.
    await row('Stella Stop').getByRole('link').click();
    await page.getByLabel('Reach').getByText('SMS opted out').waitFor();
    await page.goBack();
    await row('Dora Dnc').getByRole('link').click();
    await page.getByRole('heading', { name: 'Dora Dnc' }).waitFor();
    await page.getByLabel('Reach').getByText('do not contact').waitFor();
    expect(
      await page
        .getByLabel('Reach')
        .getByText(/opted out/)
        .count(),
    ).toBe(0);
    await screenshot(page, 'lead-header-dnc');
    await page.goBack();
    // Parley's own confirmation of the STOP is not the team's words.
    await row('Stella Stop')
      .getByText(/^Automatic: /)
      .waitFor();
    // A lead without a single message is no conversation.
    const silent = uniquePhone();
    await createLead(server.ts.acme, { firstName: 'Silas', lastName: 'Silent', phone: silent });
    const later = uniquePhone();
    await createLead(server.ts.acme, { firstName: 'Lara', lastName: 'Later', phone: later });
    await inbound(later, 'a later conversation');
    await page.reload();
    await row('Lara Later').getByText('a later conversation').waitFor();
    expect(await row('Silas Silent').count()).toBe(0);
    await screenshot(page, 'inbox-opt-out');
  });

  it('"Call now" asks the server to place the call and says its answer next to the button', async () => {
    const id = await createLead(server.ts.acme, { firstName: 'Cal', lastName: 'Now', phone: uniquePhone() });
    await page.goto(`/console/leads/${id}`);
    await page.getByRole('button', { name: 'Call now' }).click();
    // This server has no Twilio: the API's refusal stands beside the button, and no call was recorded.
    await page
      .locator('p', { has: page.getByRole('button', { name: 'Call now' }) })
      .locator('xpath=following-sibling::*[1]')
      .getByText(/Twilio is not configured/)
      .waitFor();
    await screenshot(page, 'lead-call-now-feedback');
    expect((await server.ts.acme.get(`/leads/${id}/calls`)).body.calls).toEqual([]);
  });

  it("renders a lead's <script> as text: nothing runs", async () => {
    const phone = uniquePhone();
    const id = await createLead(server.ts.acme, { firstName: '<b>Bold</b>', lastName: 'Mallory', phone });
    const evil = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">';
    await inbound(phone, evil);
    await page.goto(`/console/leads/${id}`);
    await page.locator('.thread').getByText(evil).waitFor();
    expect(await page.getByRole('heading', { name: '<b>Bold</b> Mallory' }).count()).toBe(1);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator('.thread script, .thread img, h1 b').count()).toBe(0);
  });

  it('edits a profile and creates one', async () => {
    const name = `Spring-${process.pid}`;
    expect((await server.ts.acme.post('/customerProfiles', { name, description: 'Old words' })).status).toBe(201);
    await page.goto('/console/profiles');
    await page.getByRole('button', { name: `Edit profile ${name}` }).click();
    await page.getByLabel('Description').fill('Spring campaign, new words');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByText('Spring campaign, new words').waitFor();
    expect((await server.ts.acme.get(`/customerProfiles/${name}`)).body.description).toBe('Spring campaign, new words');

    await page.getByRole('button', { name: 'New profile' }).click();
    await page.getByLabel('Name', { exact: true }).fill(`Summer-${process.pid}`);
    await page.getByLabel('Questions (one a line)').fill('Own or rent?\nRoof facing?');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByRole('heading', { name: `Summer-${process.pid}` }).waitFor();
    expect((await server.ts.acme.get(`/customerProfiles/Summer-${process.pid}`)).body.questions).toEqual([
      'Own or rent?',
      'Roof facing?',
    ]);
  });

  it('replays a webhook delivery (its row settles live), shows a body, filters, disables, rotates and deletes', async () => {
    const receiver = await new Receiver().start();
    try {
      const endpoint = await registerEndpoint(server.ts.acme, receiver, ['optOut']);
      const id = await createLead(server.ts.acme, { phone: uniquePhone() });
      expect((await server.ts.acme.post(`/leads/${id}/unsubscribe`, { channels: ['sms'] })).status).toBe(200);
      await until(
        () => receiver.received.length,
        (n) => n >= 1,
        20_000,
      );
      const before = receiver.received.length;
      expect(before).toBeGreaterThanOrEqual(1);

      await page.goto('/console/webhooks');
      const section = page.getByRole('region', { name: `Endpoint ${receiver.url}` });
      await section
        .getByRole('button', { name: /^Replay optOut/ })
        .first()
        .click();
      await page.getByText('Replay of optOut queued.').waitFor();
      const after = await until(
        () => receiver.received.length,
        (n) => n > before,
        20_000,
      );
      expect(after).toBeGreaterThan(before);
      const deliveries = (await server.ts.acme.get(`/webhooks/${endpoint.id}/deliveries`)).body.deliveries as unknown[];
      expect(deliveries.length).toBeGreaterThan(1);
      // The replay's row settles on the page by itself: no reload.
      const rows = section.getByRole('row').filter({ hasText: 'optOut' });
      await expect
        .poll(() => rows.filter({ hasText: 'succeeded' }).count(), { timeout: 15_000 })
        .toBe(deliveries.length);

      await rows.first().getByText('Body').click();
      await section.getByText('"event": "optOut"').first().waitFor();
      await section.getByLabel('Status').selectOption('failed');
      await section.getByText('No deliveries match.').waitFor();
      await screenshot(page, 'webhooks-deliveries');

      await section.getByRole('button', { name: 'Disable' }).click();
      await section.getByText(/^Disabled/).waitFor();
      expect((await server.ts.acme.get(`/webhooks/${endpoint.id}`)).body.enabled).toBe(false);
      page.once('dialog', (d) => void d.accept());
      await section.getByRole('button', { name: 'New secret' }).click();
      await section.getByText('New signing secret').waitFor();
      page.once('dialog', (d) => void d.accept());
      await section.getByRole('button', { name: 'Delete' }).click();
      await expect
        .poll(() => page.getByRole('region', { name: `Endpoint ${receiver.url}` }).count(), { timeout: 15_000 })
        .toBe(0);
      expect((await server.ts.acme.get(`/webhooks/${endpoint.id}`)).status).toBe(404);
    } finally {
      await receiver.stop();
    }
  });

  it('filters the inbox (needs attention, AI on) and searches leads by name', async () => {
    const tag = `${process.pid}${Date.now() % 100000}`;
    const waiting = uniquePhone();
    const answered = uniquePhone();
    await createLead(server.ts.acme, { firstName: 'Wanda', lastName: `Waiting${tag}`, phone: waiting, isAiOn: false });
    const doneId = await createLead(server.ts.acme, {
      firstName: 'Arno',
      lastName: `Answered${tag}`,
      phone: answered,
      isAiOn: true,
    });
    await inbound(waiting, 'Hello? Anyone there?');
    await inbound(answered, 'Thanks, that is all.');
    expect(
      (
        await server.ts.acme.post(`/leads/${doneId}/sendMessage`, {
          message: 'Glad to help!',
          channel: 'sms',
          sendWhenOff: true,
        })
      ).status,
    ).toBe(200);

    await page.goto('/console/');
    await page.getByText(`Wanda Waiting${tag}`).waitFor();
    await page.getByText(`Arno Answered${tag}`).waitFor();
    await page.getByLabel('Needs attention').check();
    await page.getByText(`Arno Answered${tag}`).waitFor({ state: 'detached' });
    expect(await page.getByText(`Wanda Waiting${tag}`).count()).toBe(1);
    await page.getByLabel('Needs attention').uncheck();
    await page.getByLabel('AI', { exact: true }).selectOption('true');
    await page.getByText(`Wanda Waiting${tag}`).waitFor({ state: 'detached' });
    expect(await page.getByText(`Arno Answered${tag}`).count()).toBe(1);

    await page.goto('/console/leads');
    await page.getByLabel('Search').fill('Wanda');
    await page.getByRole('link', { name: `Wanda Waiting${tag}` }).waitFor();
    await page.getByLabel('Search').fill(`Arno`);
    await page.getByRole('link', { name: `Wanda Waiting${tag}` }).waitFor({ state: 'detached' });
    expect(await page.getByRole('link', { name: `Arno Answered${tag}` }).count()).toBe(1);
  });

  it('adds context for the AI, switches the profile and puts the lead on do-not-contact', async () => {
    const profile = `Winter-${process.pid}`;
    expect((await server.ts.acme.post('/customerProfiles', { name: profile })).status).toBe(201);
    const phone = uniquePhone();
    const id = await createLead(server.ts.acme, { firstName: 'Cora', lastName: 'Context', phone });
    await page.goto(`/console/leads/${id}`);
    await page.getByLabel('Add context for the AI').fill('Has two dogs; prefers mornings.');
    await page.getByRole('button', { name: 'Add context' }).click();
    await page
      .locator('section', { has: page.getByRole('heading', { name: 'Context for the AI' }) })
      .getByText('Has two dogs; prefers mornings.')
      .waitFor();
    const notes = (await server.ts.acme.get(`/leads/${id}/context`)).body.notes as { text: string }[];
    expect(notes.map((n) => n.text)).toContain('Has two dogs; prefers mornings.');

    await page.getByLabel('Profile', { exact: true }).selectOption(profile);
    await page.getByRole('button', { name: 'Switch' }).click();
    await page.getByText('Profile switched.').waitFor();
    await screenshot(page, 'lead-profile-switched-feedback');
    expect((await lead(id)).customerProfile).toBe(profile);

    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Add to do-not-contact' }).click();
    await page.getByText('This lead is on the do-not-contact list').waitFor();
    // The next action's feedback replaces the last one.
    expect(await page.getByText('Profile switched.').count()).toBe(0);
    // The header says it at once, with the reply box's reason.
    await page.getByLabel('Reach').getByText('do not contact').waitFor();
    await screenshot(page, 'lead-dnc-feedback');
    expect(await page.getByLabel('Reply', { exact: true }).isDisabled()).toBe(true);
    expect((await server.ts.acme.get(`/dnc/check?phone=${encodeURIComponent(phone)}`)).body.isDoNotContact).toBe(true);
  });

  it('saves settings: contact hours and coupling', async () => {
    await page.goto('/console/settings');
    // The time zone is picked from the zones the browser knows, by typing part of one.
    const zoneBefore = (await server.ts.acme.get('/settings')).body.timeZone as string;
    expect(zoneBefore).not.toBe('America/Chicago');
    const zone = page.getByRole('combobox', { name: 'Time zone (when the lead has none)' });
    await zone.fill('');
    await zone.pressSequentially('Chic');
    const offered = page.getByRole('listbox', { name: 'Time zones' }).getByRole('option');
    await offered.filter({ hasText: 'America/Chicago' }).waitFor();
    expect((await offered.allTextContents()).every((z) => /chic/i.test(z))).toBe(true);
    // The open list is a combobox's listbox to a screen reader.
    expect(await seriousViolations(page, '.combo')).toEqual([]);
    const chicagoId = await offered.filter({ hasText: 'America/Chicago' }).getAttribute('id');
    await offered.filter({ hasText: 'America/Chicago' }).click();
    expect(await zone.inputValue()).toBe('America/Chicago');
    expect(await page.getByRole('listbox', { name: 'Time zones' }).count()).toBe(0);
    // Typing announces how many zones match and how many of them the list shows.
    const count = page.locator('.combo [aria-live="polite"]');
    await zone.fill('');
    await zone.pressSequentially('america/');
    const americas = await page.evaluate(
      () => Intl.supportedValuesOf('timeZone').filter((z) => z.toLowerCase().includes('america/')).length,
    );
    expect(americas).toBeGreaterThan(12);
    await expect.poll(() => count.textContent()).toBe(`12 of ${americas} zones shown`);
    await zone.pressSequentially('nowhere');
    await expect.poll(() => count.textContent()).toBe('No zone matches');
    // A press on the list outside its options (where its scrollbar is drawn; headless Chromium draws none, so its
    // top padding here) leaves the list open and the focus in the field.
    await zone.fill('');
    await zone.pressSequentially('america/');
    const list = page.getByRole('listbox', { name: 'Time zones' });
    const box = (await list.boundingBox())!;
    await page.mouse.click(box.x + box.width / 2, box.y + 2);
    expect(await zone.evaluate((z) => z === document.activeElement)).toBe(true);
    expect(await list.count()).toBe(1);
    expect(await zone.inputValue()).toBe('america/');
    // An option's id follows its zone, not its place: moving to America/Chicago, elsewhere in this list than under
    // "Chic", names the same id, so a screen reader announces each move to another zone.
    await zone.fill('');
    await zone.pressSequentially('america/c');
    await offered.filter({ hasText: 'America/Chicago' }).waitFor();
    const texts = await offered.allTextContents();
    const ids = await offered.evaluateAll((os) => os.map((o) => o.id));
    expect(new Set(ids).size).toBe(texts.length);
    const at = texts.indexOf('America/Chicago');
    expect(at).toBeGreaterThan(0);
    for (let i = 0; i <= at; i++) await zone.press('ArrowDown');
    await expect.poll(() => zone.getAttribute('aria-activedescendant')).toBe(chicagoId);
    expect(await page.locator(`[id="${chicagoId}"]`).getAttribute('aria-selected')).toBe('true');
    // Home moves the caret in the field, which takes the visual focus back; Up from there goes to the last option.
    await zone.press('Home');
    await expect.poll(() => zone.getAttribute('aria-activedescendant')).toBeNull();
    expect(await zone.evaluate((z: HTMLInputElement) => z.selectionStart)).toBe(0);
    await zone.press('ArrowUp');
    await expect.poll(() => zone.getAttribute('aria-activedescendant')).toBe(ids.at(-1));
    // Escape closes the list and keeps what was typed; a second one clears the field; Alt+Down opens the list.
    await zone.press('Escape');
    await list.waitFor({ state: 'detached' });
    expect(await zone.inputValue()).toBe('america/c');
    expect(await zone.getAttribute('aria-expanded')).toBe('false');
    await zone.press('Alt+ArrowDown');
    await list.waitFor();
    expect(await zone.getAttribute('aria-activedescendant')).toBeNull();
    await zone.press('Escape');
    await list.waitFor({ state: 'detached' });
    await zone.press('Escape');
    await expect.poll(() => zone.inputValue()).toBe('');
    // The keyboard picks too: Down moves to the first zone with "europe/par" in it, Enter picks it.
    await zone.pressSequentially('europe/par');
    await zone.press('ArrowDown');
    await zone.press('Enter');
    expect(await zone.inputValue()).toBe('Europe/Paris');
    // Enter without moving in the list keeps what was typed (no zone is picked for the user): the form is sent as
    // it is, and the server refuses the zone with its message and changes nothing.
    await zone.fill('');
    await zone.pressSequentially('europe/par');
    await offered.filter({ hasText: 'Europe/Paris' }).waitFor();
    await zone.press('Enter');
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('timeZone is not a known IANA time zone');
    expect(await zone.inputValue()).toBe('europe/par');
    expect((await server.ts.acme.get('/settings')).body.timeZone).toBe(zoneBefore);
    await screenshot(page, 'settings-time-zone-typed');
    await zone.fill('');
    await zone.pressSequentially('Chic');
    await offered.filter({ hasText: 'America/Chicago' }).click();
    await page.getByLabel('From').fill('09:30');
    await page.getByLabel('to', { exact: true }).fill('18:45');
    const coupled = (await server.ts.acme.get('/settings')).body.smsVoiceOptOutCoupled as boolean;
    await page.getByLabel('An SMS or voice opt-out unsubscribes both').setChecked(!coupled);
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings saved.').waitFor();
    const after = (await server.ts.acme.get('/settings')).body;
    expect(after.contactHours).toEqual({ start: '09:30', end: '18:45' });
    expect(after.smsVoiceOptOutCoupled).toBe(!coupled);
    expect(after.timeZone).toBe('America/Chicago');
    await screenshot(page, 'settings-time-zone');
  });

  // Last: it narrows the organization's contact hours.
  it("shows each message's state with its reason: blocked, and waiting for contact hours", async () => {
    const id = await createLead(server.ts.acme, {
      firstName: 'Stella',
      lastName: 'States',
      phone: uniquePhone(),
      email: `stella-${process.pid}@example.com`,
      timeZone: 'UTC',
    });
    expect((await server.ts.acme.post(`/leads/${id}/unsubscribe`, { channels: ['sms'] })).status).toBe(200);
    const blocked = await server.ts.acme.post(`/leads/${id}/sendMessage`, {
      message: 'One more thing',
      channel: 'sms',
      sendWhenOff: true,
    });
    expect(blocked.body.status).toBe('blocked');
    // The inbox's preview says the last message never went out.
    await page.goto('/console/');
    const row = page
      .getByRole('list', { name: 'Conversations' })
      .getByRole('listitem')
      .filter({ hasText: 'Stella States' });
    await row.getByText('not sent: blocked').waitFor();
    expect(await row.textContent()).toContain('One more thing');
    await screenshot(page, 'inbox-blocked-preview');
    const hour = new Date().getUTCHours();
    const hh = (h: number) => `${String(h % 24).padStart(2, '0')}:00`;
    expect(
      (
        await server.ts.acme.patch('/settings', {
          timeZone: 'UTC',
          contactHours: { start: hh(hour + 2), end: hh(hour + 3) },
        })
      ).status,
    ).toBe(200);
    const waiting = await server.ts.acme.post(`/leads/${id}/sendMessage`, {
      message: 'See you tomorrow',
      channel: 'email',
      sendWhenOff: true,
    });
    expect(waiting.body.status).toBe('waiting');

    await page.goto(`/console/leads/${id}`);
    const item = (text: string) => page.locator('.msg', { hasText: text }).locator('.msg-state');
    await expect.poll(() => item('One more thing').textContent(), { timeout: 15_000 }).toMatch(/^blocked — .+/);
    await expect
      .poll(() => item('See you tomorrow').textContent(), { timeout: 15_000 })
      .toMatch(/^waiting for contact hours — .+ until /);
  });
});
