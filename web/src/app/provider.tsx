import { QueryClientProvider } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useState, type ReactNode } from 'react';
import { AuthProvider } from '@/lib/auth';
import { whenIdle } from '@/lib/idle';
import { createQueryClient } from '@/lib/react-query';
import { useToasts } from '@/lib/toast';

// The toast UI (Radix) is not part of the first download: it loads when the browser is idle
// or when the first toast is raised, whichever comes first. The toast store is always there.
const Toaster = lazy(() => import('@/components/ui/toaster').then((m) => ({ default: m.Toaster })));

function DeferredToaster() {
  const raised = useToasts().length > 0;
  const [idle, setIdle] = useState(false);
  useEffect(() => {
    whenIdle(() => setIdle(true));
  }, []);
  if (!idle && !raised) return null;
  return (
    <Suspense fallback={null}>
      <Toaster />
    </Suspense>
  );
}

export function AppProvider({ children }: { children: ReactNode }) {
  const [queryClient] = useState(createQueryClient);
  return (
    <QueryClientProvider client={queryClient}>
      <AuthProvider>
        {children}
        <DeferredToaster />
      </AuthProvider>
    </QueryClientProvider>
  );
}
