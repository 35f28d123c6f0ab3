// /subscribe/success is written in Portuguese, as the original product had it (docs/product.md §2 and §8).
import { CheckCircle2, Loader2, XCircle } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { Button, buttonClass } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { paths } from '@/config/paths';
import { verifySubscription } from '@/features/subscription/api/verify-subscription';
import { ApiError } from '@/lib/api-client';
import { useAuth } from '@/lib/auth';

/** A refusal from the server (e.g. 400 for an unknown session) rather than no answer at all. */
const isServerAnswer = (error: unknown) => error instanceof ApiError && error.status < 500;

type State =
  | { kind: 'verifying' }
  | { kind: 'success'; message: string }
  | { kind: 'failure'; message: string };

export const PT = {
  verifying: 'Verificando sua assinatura...',
  success: 'Assinatura confirmada!',
  successBody: 'Obrigado! Sua assinatura premium está ativa.',
  failure: 'Não foi possível confirmar sua assinatura',
  missingSession: 'ID da sessão não encontrado na URL.',
  genericFailure: 'Não foi possível verificar o pagamento. Tente novamente.',
  connection: 'Erro de conexão ao verificar a assinatura. Verifique sua internet e tente novamente.',
  goToApp: 'Ir para o app',
  tryAgain: 'Tentar novamente',
  backToApp: 'Voltar para o app',
};

export function SubscriptionSuccess({ sessionId }: { sessionId: string | null }) {
  const { refreshUser } = useAuth();
  const [state, setState] = useState<State>(() =>
    sessionId ? { kind: 'verifying' } : { kind: 'failure', message: PT.missingSession },
  );
  const started = useRef(false);

  useEffect(() => {
    if (!sessionId || started.current) return;
    started.current = true;
    verifySubscription(sessionId)
      .then(async (result) => {
        if (result.success) {
          setState({ kind: 'success', message: result.message });
          await refreshUser();
        } else {
          // The page is Portuguese whatever the server's language: its words go to the console only.
          console.warn('Subscription not verified:', result.message);
          setState({ kind: 'failure', message: PT.genericFailure });
        }
      })
      .catch((error: Error) => {
        console.warn('Verifying the subscription failed', error);
        setState({ kind: 'failure', message: isServerAnswer(error) ? PT.genericFailure : PT.connection });
      });
  }, [sessionId, refreshUser]);

  return (
    <div lang="pt-BR" className="mx-auto flex max-w-lg flex-col items-center py-10">
      <Card className="flex w-full flex-col items-center gap-4 text-center">
        {state.kind === 'verifying' && (
          <>
            <Loader2 aria-hidden="true" className="h-10 w-10 animate-spin text-indigo-600" />
            <h1 className="text-xl font-semibold" role="status">
              {PT.verifying}
            </h1>
          </>
        )}
        {state.kind === 'success' && (
          <>
            <CheckCircle2 aria-hidden="true" className="h-10 w-10 text-green-600" />
            <h1 className="text-2xl font-bold">{PT.success}</h1>
            <p className="text-slate-600 dark:text-slate-400">{PT.successBody}</p>
            <Link to={paths.app} className={buttonClass('primary')}>
              {PT.goToApp}
            </Link>
          </>
        )}
        {state.kind === 'failure' && (
          <>
            <XCircle aria-hidden="true" className="h-10 w-10 text-red-600" />
            <h1 className="text-2xl font-bold">{PT.failure}</h1>
            <p className="text-slate-600 dark:text-slate-400" role="alert">
              {state.message}
            </p>
            <div className="flex flex-wrap justify-center gap-2">
              <Button onClick={() => window.location.reload()}>{PT.tryAgain}</Button>
              <Link to={paths.app} className={buttonClass('outline')}>
                {PT.backToApp}
              </Link>
            </div>
          </>
        )}
      </Card>
    </div>
  );
}
