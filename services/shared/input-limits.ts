/**
 * Applies the configured input caps (loadConfig().inputLimits) to the pure parsing layers of this
 * process: the API process for inline parsing, and every document worker at start.
 */
import { configureXmlLimits } from '../../mappings/xml/limits.ts';
import { configurePdfLimits } from '../../mappings/factur-x/limits.ts';
import type { InputLimits } from './config.ts';

export function configureInputLimits(limits: InputLimits): void {
  configureXmlLimits(limits.xml);
  configurePdfLimits(limits.pdf);
}
