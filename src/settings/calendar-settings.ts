import { DomainError } from '../platform/errors.js';
import { checkTimeZone } from '../platform/time-zone.js';
import type { CalendarInputValue, SettingsView } from './settings.schemas.js';

/** The calendar as stored (docs/appointments.md): Cal.com's API key included, never shown again. */
export type CalendarSettings = Omit<NonNullable<SettingsView['calendar']>, 'calcom'> & {
  calcom: { baseUrl: string; eventTypeId: number; apiKey: string } | null;
};

/** Monday to Friday, 09:00-17:00 in the calendar's zone: the embedded calendar's hours until the organization sets its own. */
export const DEFAULT_WEEKLY_HOURS: CalendarSettings['weeklyHours'] = {
  mon: [['09:00', '17:00']],
  tue: [['09:00', '17:00']],
  wed: [['09:00', '17:00']],
  thu: [['09:00', '17:00']],
  fri: [['09:00', '17:00']],
};
export const DEFAULT_REMINDER_MINUTES = [24 * 60, 60];
export const DEFAULT_DURATION_MINUTES = 30;

/** The stored calendar from PATCH /settings `calendar` (defaults filled in, Cal.com's base URL checked). */
export function calendarSettings(input: CalendarInputValue, allowPrivate: boolean): CalendarSettings {
  if (input.timeZone) checkTimeZone(input.timeZone, 'calendar.timeZone');
  for (const ranges of Object.values(input.weeklyHours ?? {}) as (string[][] | undefined)[]) {
    for (const [start = '', end = ''] of ranges ?? [])
      if (start >= end) throw new DomainError('invalid_hours', { field: 'calendar.weeklyHours' });
  }
  if (input.provider === 'calcom' && !input.calcom) throw new DomainError('calcom_required');
  if (input.calcom) {
    let url: URL;
    try {
      url = new URL(input.calcom.baseUrl);
    } catch {
      throw new DomainError('invalid_url', { detail: 'calendar.calcom.baseUrl must be an absolute URL' });
    }
    if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) {
      throw new DomainError('invalid_url', {
        detail: 'calendar.calcom.baseUrl must use https (http only with PARLEY_ALLOW_PRIVATE_WEBHOOK_URLS=true)',
      });
    }
  }
  return {
    provider: input.provider,
    durationMinutes: input.durationMinutes ?? DEFAULT_DURATION_MINUTES,
    ownerId: input.ownerId ?? null,
    timeZone: input.timeZone ?? null,
    weeklyHours: input.weeklyHours ?? DEFAULT_WEEKLY_HOURS,
    reminderMinutes: input.reminderMinutes ?? DEFAULT_REMINDER_MINUTES,
    profileReminderMinutes: input.profileReminderMinutes ?? {},
    calcom: input.calcom
      ? {
          baseUrl: input.calcom.baseUrl.replace(/\/+$/, ''),
          apiKey: input.calcom.apiKey,
          eventTypeId: input.calcom.eventTypeId,
        }
      : null,
  };
}

/** What a client reads: Cal.com's key is never shown again. */
export function calendarView(c: CalendarSettings | null | undefined): SettingsView['calendar'] {
  if (!c) return null;
  return {
    ...c,
    calcom: c.calcom ? { baseUrl: c.calcom.baseUrl, eventTypeId: c.calcom.eventTypeId, apiKeySet: true } : null,
  };
}
