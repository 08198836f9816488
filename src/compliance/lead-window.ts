import type { LeadRow } from '../lead-records/leads.repository.js';
import type { OrganizationSettings } from '../settings/settings.service.js';
import { WEEKDAYS } from '../settings/settings.schemas.js';
import { contactWindow, type WindowDecision } from './contact-window.js';
import { regionOfPhone, zonesForLead } from './lead-zones.js';

export type LeadWindow = WindowDecision;

export interface WindowAsk {
  /** Lift the organization's own hours (sendMessage `overrideBusinessHours`, compliance messages); never the legal floor. */
  overrideOrganizationHours: boolean;
  /** A reply to the lead's own message within the reply window: the legal floor and the regional window do not hold it (gate.ts). */
  answersLeadNow?: boolean;
}

/**
 * Whether `now` is inside the contact hours where the lead is, and if not,
 * when they open. Zone precedence: the lead's own `timeZone`, else the zone(s)
 * of its phone number (all of them must be inside), else the organization's.
 * The legal floor (08:00-21:00) holds in every one of them; the region of the
 * number picks the stricter regional window, when `regionalRules` is on.
 */
export async function leadContactWindow(
  lead: LeadRow,
  settings: OrganizationSettings,
  now: Date,
  ask: WindowAsk,
): Promise<LeadWindow> {
  const [{ zones }, region] = await Promise.all([
    zonesForLead({ timeZone: lead.time_zone, phone: lead.phone }, settings.timeZone),
    settings.regionalRules ? regionOfPhone(lead.phone) : Promise.resolve(null),
  ]);
  return contactWindow(
    now,
    zones,
    {
      start: settings.contactHours.start,
      end: settings.contactHours.end,
      weekdays: settings.contactDays.map((d) => WEEKDAYS.indexOf(d)),
      holidays: settings.holidays,
      regionalRules: settings.regionalRules,
      overrideOrganizationHours: ask.overrideOrganizationHours,
      answersLeadNow: ask.answersLeadNow === true,
    },
    region,
  );
}
