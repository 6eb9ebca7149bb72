import { queryOptions, useQuery } from "@tanstack/react-query";
import { apiGet } from "../client";
import type { Plan } from "../types";
import { planKeys } from "./keys";

/** Plans are defined in code on the server: they change only with a deploy. */
export const plansQuery = () =>
  queryOptions({
    queryKey: planKeys.list(),
    queryFn: ({ signal }) => apiGet<Plan[]>("/plans", signal),
    staleTime: 5 * 60_000,
  });

export const usePlans = () => useQuery(plansQuery());
