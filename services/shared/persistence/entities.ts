/** The explicit entity list: MikroORM discovers nothing by folder scanning. */
import { Organization } from '../../tenancy/organization.entity.ts';
import { Company } from '../../tenancy/company.entity.ts';
import { ApiKey } from '../../tenancy/api-key.entity.ts';

export const entities = [Organization, Company, ApiKey];
