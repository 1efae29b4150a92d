declare module 'parse-prometheus-text-format' {
  /** Prometheus text exposition format → metric families (name, type, samples). */
  export default function parsePrometheusTextFormat(text: string): unknown[];
}
