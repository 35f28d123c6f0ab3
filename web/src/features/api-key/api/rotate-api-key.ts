import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import type { ApiKeyBody } from '@/lib/api/types';

export const rotateApiKey = () => api.post<ApiKeyBody>('/api/key/rotate');

export function useRotateApiKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: rotateApiKey,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['api-key'] }),
  });
}
