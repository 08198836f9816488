/**
 * Which lead field each CSV column fills. Headers are compared normalised
 * (lower case, without spaces, `_`, `-` and `.`), so `First Name`,
 * `first_name` and `FIRSTNAME` are one spelling. A column no spelling names
 * goes to additionalInfo under its header as written.
 */
export const LEAD_FIELDS = ['firstName', 'lastName', 'phone', 'email', 'timeZone', 'externalLeadId'] as const;
export type LeadField = (typeof LEAD_FIELDS)[number];

/** What a column becomes: a lead field, a key of additionalInfo, or nothing (an empty header). */
export type ColumnTarget = { field: LeadField } | { info: string } | { ignore: true };

export const normaliseHeader = (header: string): string =>
  header
    .trim()
    .toLowerCase()
    .replace(/[\s_\-.]+/g, '');

/**
 * Spellings seen in CRM and spreadsheet exports. A bare `id` is deliberately
 * absent: in an export of Parley (or many CRMs) it is that system's own row id,
 * and reading it as externalLeadId would merge unrelated leads; map it
 * explicitly (`--map "id=externalLeadId"`) when it is the external id.
 */
const SPELLINGS: Record<LeadField, string[]> = {
  firstName: ['firstname', 'first', 'givenname', 'forename'],
  lastName: ['lastname', 'last', 'surname', 'familyname'],
  phone: [
    'phone',
    'phonenumber',
    'mobile',
    'mobilephone',
    'mobilenumber',
    'cell',
    'cellphone',
    'cellnumber',
    'telephone',
    'tel',
  ],
  email: ['email', 'emailaddress', 'mail'],
  timeZone: ['timezone', 'tz', 'zone'],
  externalLeadId: ['externalid', 'externalleadid', 'leadexternalid', 'crmid'],
};

const BY_SPELLING = new Map<string, LeadField>();
for (const field of LEAD_FIELDS) for (const s of SPELLINGS[field]) BY_SPELLING.set(s, field);

/** The field a header names by a known spelling, if any. */
export function fieldOf(header: string): LeadField | undefined {
  return BY_SPELLING.get(normaliseHeader(header));
}

export class MappingError extends Error {}

/** A --map entry: the header as the user spelled it, and what it becomes. Keyed by the normalised header. */
export interface MapEntry {
  header: string;
  target: ColumnTarget;
}

/**
 * `--map "Mobile=phone,First Name=firstName"`: CSV header = lead field, or
 * `Header=info:key` / `Header=-` (ignore). Fields are matched normalised too
 * (`first_name`, `FirstName`). Errors name the bad part.
 */
export function parseMap(text: string | undefined): Map<string, MapEntry> {
  const out = new Map<string, MapEntry>();
  if (text === undefined || text.trim() === '') return out;
  for (const part of text.split(',')) {
    const at = part.lastIndexOf('=');
    if (at <= 0) throw new MappingError(`map entry "${part.trim()}" must be CSV header=lead field, like Mobile=phone`);
    const header = part.slice(0, at).trim();
    const target = part.slice(at + 1).trim();
    if (header === '') throw new MappingError(`map entry "${part.trim()}" has no CSV header before =`);
    if (target === '-') out.set(normaliseHeader(header), { header, target: { ignore: true } });
    else if (target.startsWith('info:') && target.length > 5)
      out.set(normaliseHeader(header), { header, target: { info: target.slice(5) } });
    else {
      const field = LEAD_FIELDS.find((f) => normaliseHeader(f) === normaliseHeader(target));
      if (!field)
        throw new MappingError(
          `map entry "${part.trim()}": "${target}" is not a lead field (one of ${LEAD_FIELDS.join(', ')}, info:KEY or -)`,
        );
      out.set(normaliseHeader(header), { header, target: { field } });
    }
  }
  return out;
}

export interface ColumnPlan {
  targets: ColumnTarget[];
  /** Headers as written, for the rejects file and error messages. */
  headers: string[];
}

/**
 * The plan for a header line: --map first, then the known spellings, then
 * additionalInfo. Two columns filling one field is an error (which would win
 * is not something to guess), and so is a --map header the file does not have.
 */
export function planColumns(headers: string[], map: Map<string, MapEntry>): ColumnPlan {
  const normalised = headers.map(normaliseHeader);
  const missing = [...map].filter(([key]) => !normalised.includes(key)).map(([, e]) => e.header);
  if (missing.length > 0)
    throw new MappingError(
      `--map names columns the file does not have: ${missing.join(', ')} (its columns: ${headers.join(', ')})`,
    );
  const taken = new Map<LeadField, string>();
  const targets = headers.map((header, i): ColumnTarget => {
    // biome-ignore lint/style/noNonNullAssertion: normalised is headers mapped, so it has an entry at every i of headers
    const key = normalised[i]!;
    const field = fieldOf(header);
    const target: ColumnTarget =
      map.get(key)?.target ?? (key === '' ? { ignore: true } : field ? { field } : { info: header.trim() });
    if ('field' in target) {
      const other = taken.get(target.field);
      if (other !== undefined)
        throw new MappingError(
          `columns "${other}" and "${header}" both fill ${target.field}; choose one with --map (e.g. "${header}=-")`,
        );
      taken.set(target.field, header);
    }
    return target;
  });
  return { targets, headers };
}
