import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '@/lib/api-client';
import { createQueryClient } from '@/lib/react-query';

const downgraded = () => new ApiError(403, '403: {"error":"subscription_required"}', 'subscription_required');

describe('createQueryClient', () => {
  it('reads the subscription again when a query answers 403 subscription_required', async () => {
    const client = createQueryClient();
    const invalidate = vi.spyOn(client, 'invalidateQueries');
    await client.fetchQuery({ queryKey: ['news'], queryFn: () => Promise.reject(downgraded()) }).catch(() => {});
    expect(invalidate).toHaveBeenCalledWith({ queryKey: ['user-metadata'] });
  });

  it('does the same for a mutation, and nothing for other errors', async () => {
    const client = createQueryClient();
    const invalidate = vi.spyOn(client, 'invalidateQueries');
    await client.fetchQuery({ queryKey: ['other'], queryFn: () => Promise.reject(new ApiError(403, '403: {"error":"forbidden"}', 'forbidden')) }).catch(() => {});
    expect(invalidate).not.toHaveBeenCalled();
    const mutation = client.getMutationCache().build(client, { mutationFn: () => Promise.reject(downgraded()) });
    await mutation.execute(undefined).catch(() => {});
    expect(invalidate).toHaveBeenCalledWith({ queryKey: ['user-metadata'] });
  });
});
