/**
 * What the annuaire says about a SIREN, read from the routing switches recorded here
 * (portability_routings, every organization of the mode). The fr-ppf connector files lifecycle
 * statuses only — it has no directory verb and the PPF simulator no annuaire endpoint — so the PPF
 * annuaire itself is not consulted yet; a connector that exposes one plugs in before the default.
 *
 * - A gaining switch in effect (effective date reached, Paris calendar of the platform clock): this
 *   platform's matricule, from the effective date, `isFlowie` true.
 * - A losing switch not yet in effect: still this platform, until the day before the date.
 * - A losing switch in effect, or a gaining one not yet: another platform decides (its matricule is
 *   not known here: null).
 * - Nothing recorded: 9998, the public default (nobody declared).
 * A line naming a SIRET is of level SIRET, else SIREN. Gaining switches win over losing ones.
 */
import { addDays } from './legal-clocks.ts';
import { DEFAULT_MATRICULE, type AnnuaireView } from './portability.contract.ts';
import type { RoutingRole } from './portability.entity.ts';

export interface RoutingLine { role: RoutingRole; siret: string | null; effectiveDate: string; serviceUntil: string | null }

export function annuaireOf(siren: string, lines: readonly RoutingLine[], today: string, ourMatricule: string): AnnuaireView {
  const level = (l: RoutingLine) => (l.siret ? 'SIRET' : 'SIREN') as AnnuaireView['level'];
  const ordered = [...lines].sort((a, b) => (a.role === b.role ? b.effectiveDate.localeCompare(a.effectiveDate) : a.role === 'GAINING_PA' ? -1 : 1));
  const gainingInEffect = ordered.find((l) => l.role === 'GAINING_PA' && l.effectiveDate <= today);
  if (gainingInEffect) return { siren, currentPaMatricule: ourMatricule, effectiveFrom: gainingInEffect.effectiveDate, effectiveTo: null, isFlowie: true, level: level(gainingInEffect), source: 'routing' };
  const line = ordered[0];
  if (!line) return { siren, currentPaMatricule: DEFAULT_MATRICULE, effectiveFrom: null, effectiveTo: null, isFlowie: false, level: null, source: 'default' };
  if (line.role === 'LOSING_PA' && today < line.effectiveDate) {
    return { siren, currentPaMatricule: ourMatricule, effectiveFrom: null, effectiveTo: addDays(line.effectiveDate, -1), isFlowie: true, level: level(line), source: 'routing' };
  }
  if (line.role === 'LOSING_PA') return { siren, currentPaMatricule: null, effectiveFrom: line.effectiveDate, effectiveTo: null, isFlowie: false, level: level(line), source: 'routing' };
  return { siren, currentPaMatricule: null, effectiveFrom: null, effectiveTo: addDays(line.effectiveDate, -1), isFlowie: false, level: level(line), source: 'routing' };
}
