import type { Deps } from '../platform/deps.js';
import type { Db } from '../platform/db/schema.js';
import { findOrganization, updateOrganizationSettings } from '../organizations/organizations.repository.js';
import { checkTimeZone } from '../platform/time-zone.js';
import type { SettingsView, UpdateSettingsInput } from './settings.schemas.js';

export const DEFAULT_SETTINGS: SettingsView = {
  smsVoiceOptOutCoupled: false,
  timeZone: 'UTC',
  contactHours: { start: '08:00', end: '21:00' },
  helpText: 'Reply STOP to stop receiving messages, START to receive them again.',
};

/** Stored settings are a partial JSON document; defaults fill the rest, so new settings need no migration. */
export async function readSettings(db: Db, organizationId: string): Promise<SettingsView> {
  const org = await findOrganization(db, organizationId);
  const stored = org ? (JSON.parse(org.settings) as Partial<SettingsView>) : {};
  return { ...DEFAULT_SETTINGS, ...stored };
}

export async function updateSettings(deps: Deps, organizationId: string, input: UpdateSettingsInput): Promise<SettingsView> {
  if (input.timeZone !== undefined) checkTimeZone(input.timeZone);
  return deps.db.transaction().execute(async (trx) => {
    const org = await findOrganization(trx, organizationId);
    const stored = org ? (JSON.parse(org.settings) as Partial<SettingsView>) : {};
    const next = { ...stored, ...input };
    await updateOrganizationSettings(trx, organizationId, JSON.stringify(next));
    return { ...DEFAULT_SETTINGS, ...next };
  });
}
