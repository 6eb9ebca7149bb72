import { queryOptions, useQuery } from "@tanstack/react-query";
import { apiGet } from "../client";
import type { FirmwareHistory } from "../types";

export const firmwareKeys = {
  all: ["firmware"] as const,
  model: (modelId: number) => [...firmwareKeys.all, modelId] as const,
};

/** A drive model's figures by firmware version, each update judged per figure. */
export const firmwareHistoryQuery = (modelId: number) =>
  queryOptions({
    queryKey: firmwareKeys.model(modelId),
    queryFn: ({ signal }) => apiGet<FirmwareHistory>(`/models/${modelId}/firmware`, signal),
  });

export const useFirmwareHistory = (modelId: number) => useQuery(firmwareHistoryQuery(modelId));
