import { Type } from '@sinclair/typebox';
import type { OutboxEvent } from '../events/outbox.repository.js';
import type { LeadRow } from './leads.repository.js';

/** The column's shape in the API (a lead's view and writes, a context update): any JSON object. */
export const AdditionalInfo = Type.Record(Type.String(), Type.Unknown(), {
  description: 'Free-form map of string keys to values',
});

/** The lead's additionalInfo column as an object; anything but a JSON object reads as {}. */
export function parseInfo(text: string): Record<string, unknown> {
  const value: unknown = JSON.parse(text);
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export type InfoChanges = Record<string, { old: unknown; new: unknown }>;

/**
 * Merge semantics of docs/contract.md: keys are set, a key set to null is deleted.
 * Works on null-prototype objects, so no key can reach Object.prototype.
 */
export function mergeInfo(
  existing: Record<string, unknown>,
  patch: Record<string, unknown>,
): { merged: Record<string, unknown>; changes: InfoChanges } {
  const merged: Record<string, unknown> = Object.assign(Object.create(null), existing);
  const changes: InfoChanges = {};
  for (const key of Object.keys(patch)) {
    const before = Object.prototype.hasOwnProperty.call(merged, key) ? merged[key] : null;
    const after = patch[key] ?? null;
    if (after === null) delete merged[key];
    else merged[key] = after;
    if (JSON.stringify(before) !== JSON.stringify(after)) changes[key] = { old: before, new: after };
  }
  return { merged, changes };
}

/**
 * The additionalInfo part of any write to a lead (update, addContext): the new
 * column value and the event announcing it. No event when no key changed, so
 * a retried request does not notify twice. Emit the events in the same
 * transaction as the column write.
 */
export function mergeLeadInfo(
  lead: Pick<LeadRow, 'id' | 'external_lead_id' | 'additional_info'>,
  patch: Record<string, unknown>,
): { additionalInfo: string; events: OutboxEvent[] } {
  const { merged, changes } = mergeInfo(parseInfo(lead.additional_info), patch);
  const events: OutboxEvent[] =
    Object.keys(changes).length === 0
      ? []
      : [
          {
            type: 'lead.additionalInfo.updated',
            data: { leadId: lead.id, externalLeadId: lead.external_lead_id, changes },
          },
        ];
  return { additionalInfo: JSON.stringify(merged), events };
}
