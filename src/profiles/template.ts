import { parseInfo } from '../lead-records/additional-info.js';
import type { LeadRow } from '../lead-records/leads.repository.js';

/**
 * Fills `{{firstName}}`, `{{lastName}}` and `{{anyAdditionalInfoKey}}` in a
 * profile's message. An unknown placeholder becomes empty rather than leaking
 * template syntax to a lead.
 */
export function renderTemplate(template: string, lead: LeadRow): string {
  const info = parseInfo(lead.additional_info);
  const values: Record<string, unknown> = { ...info, firstName: lead.first_name ?? '', lastName: lead.last_name ?? '' };
  return template
    .replace(/\{\{\s*([\w.-]+)\s*\}\}/g, (_m, key: string) => {
      const v = Object.prototype.hasOwnProperty.call(values, key) ? values[key] : '';
      return v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
    })
    .replace(/[ \t]{2,}/g, ' ')
    .trim();
}
