import { type ComfyServer, comfyHttp } from './comfy-http.js';

/** One ComfyUI server as doctor reports it: reachable or not, its version and device, its queue. */
export interface ComfyHealth {
  provider: string;
  baseUrl: string;
  ok: boolean;
  version?: string;
  device?: string;
  /** Jobs running and waiting on the server (every client's, not only ours). */
  queue?: { running: number; pending: number };
  problem?: string;
}

/** Asks one server for GET /system_stats and GET /queue (with its headers), each within `timeoutMs`. */
export async function comfyHealth(server: ComfyServer, timeoutMs = 5000): Promise<ComfyHealth> {
  const http = comfyHttp(server);
  const report: ComfyHealth = { provider: server.name, baseUrl: server.baseUrl, ok: false };
  try {
    const stats = (await http.systemStats(AbortSignal.timeout(timeoutMs))) as {
      system?: { comfyui_version?: string };
      devices?: { name?: string }[];
    };
    if (stats.system?.comfyui_version) report.version = stats.system.comfyui_version;
    if (stats.devices?.[0]?.name) report.device = stats.devices[0].name;
    const queue = await http.queue(AbortSignal.timeout(timeoutMs));
    report.queue = { running: queue.queue_running?.length ?? 0, pending: queue.queue_pending?.length ?? 0 };
    report.ok = true;
  } catch (err) {
    report.problem = (err as Error).message;
  }
  return report;
}
