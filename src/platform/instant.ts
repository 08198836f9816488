/**
 * A date-time the schema admitted, as a Date. The `date-time` format accepts a
 * leap second (`23:59:60Z`), which no JavaScript date holds: that is the
 * client's 400 (`invalid`), never a RangeError and a 500 further on.
 */
export function instantOf(value: string, invalid: () => Error): Date {
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) throw invalid();
  return at;
}
