import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { apiDelete, apiGet, apiPatch, apiPost, apiPostText } from "../client";
import { driveKeys } from "../drives/keys";
import type {
  CatalogModel,
  ModelCreate,
  ModelUpdate,
  Price,
  PriceCreate,
  PriceImportResult,
  PriceUpdate,
} from "../types";
import { catalogKeys } from "./keys";

export const modelsQuery = () =>
  queryOptions({
    queryKey: catalogKeys.models(),
    queryFn: ({ signal }) => apiGet<CatalogModel[]>("/models", signal),
  });

export const useModels = () => useQuery(modelsQuery());

export const pricesQuery = () =>
  queryOptions({
    queryKey: catalogKeys.prices(),
    queryFn: ({ signal }) => apiGet<Price[]>("/prices?limit=1000", signal),
  });

export const usePrices = () => useQuery(pricesQuery());

/** Models, drives (which show their model) and prices (which name it) all change together. */
function useInvalidateCatalog() {
  const queryClient = useQueryClient();
  return () => {
    void queryClient.invalidateQueries({ queryKey: catalogKeys.all });
    void queryClient.invalidateQueries({ queryKey: driveKeys.all });
  };
}

export const useCreateModel = () => {
  const invalidate = useInvalidateCatalog();
  return useMutation({
    mutationFn: (data: ModelCreate) => apiPost<CatalogModel>("/models", data),
    onSuccess: invalidate,
  });
};

export const useUpdateModel = () => {
  const invalidate = useInvalidateCatalog();
  return useMutation({
    mutationFn: ({ id, changes }: { id: number; changes: ModelUpdate }) =>
      apiPatch<CatalogModel>(`/models/${id}`, changes),
    onSuccess: invalidate,
  });
};

export const useAddPrice = () => {
  const invalidate = useInvalidateCatalog();
  return useMutation({
    mutationFn: (data: PriceCreate) => apiPost<Price>("/prices", data),
    onSuccess: invalidate,
  });
};

export const useUpdatePrice = () => {
  const invalidate = useInvalidateCatalog();
  return useMutation({
    mutationFn: ({ id, changes }: { id: number; changes: PriceUpdate }) =>
      apiPatch<Price>(`/prices/${id}`, changes),
    onSuccess: invalidate,
  });
};

export const useDeletePrice = () => {
  const invalidate = useInvalidateCatalog();
  return useMutation({
    mutationFn: (id: number) => apiDelete(`/prices/${id}`),
    onSuccess: invalidate,
  });
};

export const useImportPrices = () => {
  const invalidate = useInvalidateCatalog();
  return useMutation({
    mutationFn: (csv: string) => apiPostText<PriceImportResult>("/prices/import", csv, "text/csv"),
    onSuccess: invalidate,
  });
};
