import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
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

describeWithBrowser('console in the browser: an agent imports leads from a CSV file', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let dir = '';

  beforeAll(async () => {
    [server, browser] = await Promise.all([startConsoleServer(), launchChromium()]);
    dir = mkdtempSync(join(tmpdir(), 'parley-import-ui-'));
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const countText = async (page: import('playwright-core').Page, label: string) =>
    (
      await page
        .locator('.import-counts div')
        .filter({ has: page.locator('dt', { hasText: new RegExp(`^${label}$`) }) })
        .locator('dd')
        .textContent()
    )?.trim();

  it('uploads the file, follows the counts to completed, offers the rejected rows and lists the new leads', async () => {
    const existingPhone = uniquePhone();
    await createLead(server.ts.acme, { firstName: 'Dora', lastName: 'Dupe', phone: existingPhone });
    const csv = [
      'First Name,Last Name,Phone,Email,Company',
      `Imogen,Importa,${uniquePhone()},imogen@example.com,Acme Roofing`,
      `Ivo,Importa,${uniquePhone()},,`,
      'Ines,Importa,,ines@example.com,',
      `Dora,Changed,${existingPhone},,`, // the same lead as Dora Dupe: skipped (the form says skip)
      'Nobody,Reachable,,,', // neither a phone nor an email
      'Bad,Phone,12,,', // not a phone number
    ].join('\n');
    const file = join(dir, 'leads.csv');
    writeFileSync(file, `${csv}\n`);

    const { context, page } = await signedIn(browser, server, server.users.agent);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    try {
      await page.goto('/console/leads');
      await page.getByRole('heading', { name: 'Import CSV' }).waitFor();
      await page.locator('tbody tr').first().waitFor();
      expect(await page.locator('tbody').textContent()).not.toContain('Imogen');

      await page.getByLabel('CSV file').setInputFiles(file);
      await page.getByLabel('On duplicate').selectOption('skip');
      await page.getByRole('button', { name: 'Import' }).click();

      // The live region ends on the summary (polled once a second).
      const live = page.locator('.import-progress[role="status"][aria-live="polite"]');
      await expect.poll(() => live.textContent(), { timeout: 30_000 }).toContain('Import completed');
      expect(await page.locator('.import-counts').getAttribute('data-status')).toBe('completed');
      expect(await countText(page, 'Rows done')).toBe('6');
      expect(await countText(page, 'Created')).toBe('3');
      expect(await countText(page, 'Updated')).toBe('0');
      expect(await countText(page, 'Skipped')).toBe('1');
      expect(await countText(page, 'Rejected')).toBe('2');

      // The rejected rows download with the session cookie, as a CSV with reason and warnings columns.
      const link = page.getByRole('link', { name: /Download the 2 rejected rows/ });
      const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
      const rejects = readFileSync((await download.path())!, 'utf8')
        .trim()
        .split(/\r?\n/);
      expect(rejects[0]).toMatch(/,reason,warnings$/);
      expect(rejects).toHaveLength(3);
      expect(rejects.slice(1).map((l) => l.split(',')[0])).toEqual(['Nobody', 'Bad']);

      // The list refreshed itself: the three new leads are there, the skipped lead kept its name.
      const body = page.locator('tbody');
      await expect.poll(() => body.textContent(), { timeout: 10_000 }).toContain('Imogen Importa');
      const text = (await body.textContent()) ?? '';
      for (const name of ['Ivo Importa', 'Ines Importa', 'Dora Dupe']) expect(text).toContain(name);
      expect(text).not.toContain('Dora Changed');
      expect(text).not.toContain('Nobody');

      // The finished panel (summary, counts, link) passes axe and fits a 390 px phone.
      expect(await seriousViolations(page, '.import')).toEqual([]);
      await page.setViewportSize({ width: 390, height: 844 });
      await page.waitForFunction(() => window.innerWidth === 390);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await screenshot(page, 'leads-import-390');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("shows the server's message for a file it refuses (an empty file: 400), and nothing is imported", async () => {
    const file = join(dir, 'empty.csv');
    writeFileSync(file, '');
    const { context, page } = await signedIn(browser, server, server.users.agent);
    try {
      await page.goto('/console/leads');
      await page.getByLabel('CSV file').setInputFiles(file);
      await page.getByRole('button', { name: 'Import' }).click();
      await expect
        .poll(() => page.getByRole('alert').textContent(), { timeout: 15_000 })
        .toContain('The CSV file is empty');
      expect(await page.locator('.import-counts').count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it('works from the keyboard: Tab reaches each control with a visible focus, Space ticks, Enter imports', async () => {
    const file = join(dir, 'one.csv');
    writeFileSync(file, `firstname,phone\nKeya,${uniquePhone()}\n`);
    const { context, page } = await signedIn(browser, server, server.users.agent);
    const focused = () =>
      page.evaluate(() => {
        const el = document.activeElement as HTMLElement;
        const style = getComputedStyle(el);
        return {
          id: el.id,
          text: el.textContent?.trim() ?? '',
          outline: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0,
        };
      });
    try {
      await page.goto('/console/leads');
      await page.getByLabel('CSV file').setInputFiles(file);
      await page.getByLabel('CSV file').focus();
      await page.keyboard.press('Tab');
      expect(await focused()).toEqual({ id: 'import-duplicate', text: expect.any(String), outline: true });
      await page.keyboard.press('Tab');
      expect(await focused()).toMatchObject({ id: 'import-start', outline: true });
      await page.keyboard.press('Space');
      expect(await page.getByLabel('Start conversations').isChecked()).toBe(true);
      await page.keyboard.press('Tab');
      expect(await focused()).toMatchObject({ text: 'Import', outline: true });
      await page.keyboard.press('Enter');
      const live = page.locator('.import-progress');
      await expect.poll(() => live.textContent(), { timeout: 30_000 }).toContain('Import completed: 1 row, 1 created');
      await expect.poll(() => page.locator('tbody').textContent(), { timeout: 10_000 }).toContain('Keya');
    } finally {
      await context.close();
    }
  });

  it('a viewer sees the leads but no import form', async () => {
    await createLead(server.ts.acme, { firstName: 'Vera', lastName: 'Viewed', phone: uniquePhone() });
    const { context, page } = await signedIn(browser, server, server.users.viewer);
    try {
      await page.goto('/console/leads');
      await page.locator('tbody tr').first().waitFor();
      expect(await page.getByRole('heading', { name: 'Import CSV' }).count()).toBe(0);
      expect(await page.getByLabel('CSV file').count()).toBe(0);
    } finally {
      await context.close();
    }
  });
});
