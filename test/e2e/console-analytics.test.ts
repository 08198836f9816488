import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DAYTIME } from '../support/clock-hours.js';
import { createCampaign } from '../campaigns/helpers.js';
import { createLead, uniquePhone } from '../support/harness.js';
import {
  describeWithBrowser,
  launchChromium,
  screenshot,
  signedIn,
  startConsoleServer,
  type ConsoleServer,
  seriousViolations,
} from './support.js';

const DAY = DAYTIME.toISOString().slice(0, 10);

describeWithBrowser('console analytics dashboard', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let campaignId = '';

  beforeAll(async () => {
    [server, browser] = await Promise.all([startConsoleServer(), launchChromium()]);
    server.ts.clock.set(DAYTIME);
    const acme = server.ts.acme;
    expect(
      (
        await acme.post('/customerProfiles', {
          name: 'ab-test',
          openingVariants: [
            { name: 'warm', text: 'Hi {{firstName}}!', weight: 1 },
            { name: 'brief', text: 'Hello', weight: 1 },
          ],
        })
      ).status,
    ).toBe(201);
    for (const firstName of ['Ana', 'Ben', 'Cy']) {
      const phone = uniquePhone();
      await createLead(acme, { firstName, phone, isAiOn: false });
      await acme.post('/inbound', { channel: 'sms', from: phone, text: firstName === 'Cy' ? 'STOP' : 'Hello there' });
    }
    // A campaign that reaches Dee (its opening is sent by the log adapter: no provider is configured).
    expect((await acme.post('/customerProfiles', { name: 'promo', openingMessage: 'Hi {{firstName}}!' })).status).toBe(
      201,
    );
    await createLead(acme, { firstName: 'Dee', phone: uniquePhone(), additionalInfo: { list: 'spring' } });
    campaignId = (
      await createCampaign(acme, {
        name: 'Spring promo',
        customerProfile: 'promo',
        filter: { additionalInfo: { list: 'spring' } },
      })
    ).id;
    await server.ts.runDue();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('shows speed to lead, the funnel, replies over time, deliverability, campaigns and openings: each chart beside its table, axe-clean, fits 390 px', async () => {
    const { context, page } = await signedIn(browser, server, server.users.viewer);
    const errors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('response', (r) => r.status() >= 400 && errors.push(`${r.status()} ${r.url()}`));
    try {
      await page.goto(`/console/analytics?from=${DAY}&to=${DAY}`);
      const funnel = page.getByRole('table', { name: 'The funnel over the range' });
      await funnel.waitFor();
      // The figures the API gives: four leads, two replies and a STOP (a reply too), one opt-out.
      await expect.poll(() => funnel.getByRole('row', { name: /^Leads/ }).textContent()).toBe('Leads4');
      expect(await funnel.getByRole('row', { name: /^Replied/ }).textContent()).toBe('Replied3');
      expect(await funnel.getByRole('row', { name: /^Opted out/ }).textContent()).toBe('Opted out1');
      await page.getByRole('table', { name: "Speed to lead, from the lead's creation" }).waitFor();
      await page.getByRole('table', { name: 'Per day (UTC)' }).waitFor();
      await page.getByRole('table', { name: 'Sends per number' }).waitFor();
      await page.getByText('The difference between variants is not yet significant').waitFor();
      // Each campaign's row is named by the campaign's name, not its id; Dee was contacted by it.
      const campaigns = page.getByRole('table', { name: /^Each campaign's report/ });
      const spring = campaigns.getByRole('row', { name: /^Spring promo/ });
      await spring.waitFor();
      expect(await spring.getByRole('rowheader').textContent()).toBe('Spring promo');
      expect(await spring.getByRole('cell').allTextContents()).toEqual([
        '1',
        '0',
        '0',
        '0',
        '0',
        '0',
        '0',
        expect.any(String),
      ]);
      expect(await campaigns.textContent()).not.toContain(campaignId);
      // uPlot arrives on demand and draws every chart; the canvases are hidden from screen readers (the tables are read).
      await expect
        .poll(() => page.locator('.chart-canvas canvas').count(), { timeout: 15_000 })
        .toBeGreaterThanOrEqual(5);
      expect(await page.locator('.chart-canvas[aria-hidden="true"]').count()).toBe(
        await page.locator('.chart-canvas').count(),
      );
      expect(await seriousViolations(page)).toEqual([]);
      expect(errors).toEqual([]);
      await screenshot(page, 'analytics');
      await page.setViewportSize({ width: 390, height: 844 });
      await page.waitForTimeout(50);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await screenshot(page, 'analytics-390');

      // Another range: the form changes it, the address keeps it.
      await page.getByLabel('From', { exact: true }).fill('2026-06-01');
      await page.getByLabel('To', { exact: true }).fill('2026-06-30');
      await page.getByRole('button', { name: 'Show' }).click();
      await expect.poll(() => funnel.getByRole('row', { name: /^Leads/ }).textContent()).toBe('Leads0');
      expect(page.url()).toContain('from=2026-06-01&to=2026-06-30');
    } finally {
      await context.close();
    }
  });
});
