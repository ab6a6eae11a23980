import { Organization } from '../../../../services/tenancy/organization.entity.ts';
import { Company } from '../../../../services/tenancy/company.entity.ts';
import { ApiKey } from '../../../../services/tenancy/api-key.entity.ts';
import { useMigratedOrm } from '../../../support/migrated-orm.ts';

describe('tenancy entities on a real PostgreSQL', () => {
  const migrated = useMigratedOrm();
  let orm: ReturnType<typeof migrated.orm>;
  beforeAll(() => { orm = migrated.orm(); });

  it('persists an organization with a company and a key, and reads them back through a fresh fork', async () => {
    const em = orm.em.fork();
    const org = em.create(Organization, { id: 'org_1', name: 'Acme', sandbox: true });
    const company = em.create(Company, { id: 'comp_1', organization: org, name: 'Acme BE', slug: 'acme-be', country: 'BE', address: { city: 'Brussels', country: 'BE' } });
    em.create(ApiKey, { id: 'key_1', organization: org, company, name: 'k', keyPrefix: 'svc_test_ab', keyHash: 'h1', keyType: 'personal', scopes: ['*'], livemode: false });
    await em.flush();

    const read = await orm.em.fork().findOneOrFail(ApiKey, { keyHash: 'h1' }, { populate: ['organization', 'company'] });
    expect(read.organization.getEntity().name).toBe('Acme');
    expect(read.company?.getEntity().address).toEqual({ city: 'Brussels', country: 'BE' });
    expect(read.scopes).toEqual(['*']);
    expect(read.createdAt).toBeInstanceOf(Date);
  });

  it('enforces the unique key hash and the plan check in the database', async () => {
    const em = orm.em.fork();
    const org = await em.findOneOrFail(Organization, 'org_1');
    em.create(ApiKey, { id: 'key_2', organization: org, name: 'dup', keyPrefix: 'x', keyHash: 'h1', keyType: 'personal', scopes: [], livemode: false });
    await expect(em.flush()).rejects.toThrow(/unique/i);
    await expect(orm.em.fork().getConnection().execute(`update organizations set plan = 'gold'`)).rejects.toThrow(/check/i);
  });
});
