import type { Deps } from '../platform/deps.js';
import type { Db } from '../platform/db/schema.js';
import { updateOrganizationSettings } from '../organizations/organizations.repository.js';
import { isUniqueViolation } from '../platform/db/errors.js';
import { Conflict } from '../platform/errors.js';
import { normalizePhone } from '../platform/phone.js';
import { checkTimeZone } from '../platform/time-zone.js';
import { findSettingsRow, setSendingNumber } from './settings.repository.js';
import type { SettingsView, UpdateSettingsInput } from './settings.schemas.js';

export const DEFAULT_SETTINGS: SettingsView = {
  smsVoiceOptOutCoupled: false,
  timeZone: 'UTC',
  contactHours: { start: '08:00', end: '21:00' },
  helpText: 'Reply STOP to stop receiving messages, START to receive them again.',
  sendingNumber: null,
};

type StoredSettings = Partial<Omit<SettingsView, 'sendingNumber'>>;

async function readRow(db: Db, organizationId: string, lock = false): Promise<{ stored: StoredSettings; sendingNumber: string | null }> {
  const org = await findSettingsRow(db, organizationId, lock);
  if (!org) return { stored: {}, sendingNumber: null };
  return { stored: storedSettings(org.settings), sendingNumber: org.sending_number };
}

function storedSettings(document: string): StoredSettings {
  // The sending number has its own unique column; a stray copy in the document never wins over it.
  const { sendingNumber: _ignored, ...stored } = JSON.parse(document) as StoredSettings & { sendingNumber?: unknown };
  return stored;
}

/** Settings from a document read along with other rows (an opt-out reads it with the lead). */
export function settingsFromDocument(document: string): Omit<SettingsView, 'sendingNumber'> {
  const { sendingNumber: _none, ...defaults } = DEFAULT_SETTINGS;
  return { ...defaults, ...storedSettings(document) };
}

/**
 * Stored settings are a partial JSON document; defaults fill the rest, so new settings need no migration.
 * The exception is `sendingNumber`, kept in a unique column because inbound provider webhooks are routed by it.
 */
export async function readSettings(db: Db, organizationId: string): Promise<SettingsView> {
  const { stored, sendingNumber } = await readRow(db, organizationId);
  return { ...DEFAULT_SETTINGS, ...stored, sendingNumber };
}

export async function updateSettings(deps: Deps, organizationId: string, input: UpdateSettingsInput): Promise<SettingsView> {
  if (input.timeZone !== undefined) checkTimeZone(input.timeZone);
  const { sendingNumber: given, ...documentFields } = input;
  const sendingNumber = given === undefined || given === null ? given : normalizePhone(given, deps.config.defaultCountry, 'sendingNumber');
  try {
    return await deps.db.transaction().execute(async (trx) => {
      const current = await readRow(trx, organizationId, true);
      const next = { ...current.stored, ...documentFields };
      await updateOrganizationSettings(trx, organizationId, JSON.stringify(next));
      if (sendingNumber !== undefined && sendingNumber !== current.sendingNumber) await setSendingNumber(trx, organizationId, sendingNumber);
      return { ...DEFAULT_SETTINGS, ...next, sendingNumber: sendingNumber === undefined ? current.sendingNumber : sendingNumber };
    });
  } catch (err) {
    // The unique index is the arbiter, so two organizations claiming one number at once cannot both win.
    if (isUniqueViolation(err)) throw new Conflict(`Sending number ${sendingNumber} is already used by another organization`, 'sending_number_taken');
    throw err;
  }
}
