import { toString as qrSvg } from 'qrcode';
import { useEffect, useState } from 'preact/hooks';

/** A QR code of `text`, drawn as SVG by the `qrcode` library and shown as an image (no inline markup, no script). */
export function QrCode({ text, label }: { text: string; label: string }) {
  const [source, setSource] = useState<string | undefined>(undefined);
  useEffect(() => {
    let cancelled = false;
    qrSvg(text, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' }).then(
      (svg) => !cancelled && setSource(`data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`),
      () => !cancelled && setSource(undefined),
    );
    return () => {
      cancelled = true;
    };
  }, [text]);
  if (!source) return <div class="qr qr-empty" aria-hidden="true" />;
  return <img class="qr" src={source} alt={label} width={200} height={200} data-testid="topup-qr" />;
}

/** Minutes and seconds until `expiresAt`, ticking each second; "expired" after. */
export function Countdown({ expiresAt }: { expiresAt: string }) {
  const [nowMs, setNowMs] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNowMs(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const leftSeconds = Math.max(0, Math.floor((Date.parse(expiresAt) - nowMs) / 1000));
  if (leftSeconds === 0) return <span class="badge badge-bad">quote expired</span>;
  const minutes = Math.floor(leftSeconds / 60);
  const seconds = String(leftSeconds % 60).padStart(2, '0');
  return (
    <span class={leftSeconds < 120 ? 'countdown countdown-late' : 'countdown'} data-testid="topup-countdown">
      {minutes}:{seconds} left
    </span>
  );
}
