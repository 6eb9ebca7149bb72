import { useState, type ChangeEvent } from "react";
import { Link } from "react-router";
import { canWrite, useMe } from "../../api/auth/queries";
import { API_BASE } from "../../api/client";
import { useBenches } from "../../api/benches/queries";
import { useCreateDrive, useDrives, useUpdateDrive } from "../../api/drives/queries";
import {
  useAddPrice,
  useCreateModel,
  useDeletePrice,
  useImportPrices,
  useModels,
  usePrices,
  useUpdateModel,
  useUpdatePrice,
} from "../../api/models/queries";
import type { CatalogModel, Drive, Price, PriceImportResult } from "../../api/types";
import { SimulatedBadge, EmbargoBadge } from "../../components/badge/badge";
import { ErrorBox } from "../../components/error-box/error-box";
import { FormField } from "../../components/form-field/form-field";
import {
  RecordForm,
  type RecordErrors,
  type RecordField,
  type RecordValues,
} from "../../components/record-form/record-form";
import { TableStateRow } from "../../components/table-states/table-states";
import { formatCapacity } from "../../lib/format-utils";
import {
  apiFieldError,
  changedValues,
  importProblems,
  optionalText,
  parseCapacity,
  requireFields,
  today,
  type Errors,
} from "./catalog-utils";
import "./catalog-page.css";

/** Run a save; an api error becomes an error next to its field (or above the buttons). */
async function save(call: () => Promise<unknown>): Promise<RecordErrors | null> {
  try {
    await call();
    return null;
  } catch (error) {
    const { field, message } = apiFieldError(error);
    return field ? { fields: { [field]: message } } : { fields: {}, form: error };
  }
}

const invalid = (fields: Errors): RecordErrors | null =>
  Object.keys(fields).length > 0 ? { fields } : null;

export function CatalogPage() {
  const me = useMe();
  const mayEdit = canWrite(me.data);
  return (
    <div className="page">
      <div className="page-header">
        <h1>Catalog</h1>
        <span className="muted">Drive models, the drive samples in the lab, and prices</span>
      </div>
      {!me.isPending && !mayEdit && (
        <p className="catalog-page__note" role="note">
          You are signed in as a viewer: editing the catalog needs a reviewer.
        </p>
      )}
      <ModelsSection mayEdit={mayEdit} />
      <DrivesSection mayEdit={mayEdit} />
      <PricesSection mayEdit={mayEdit} />
    </div>
  );
}

// --- Models ----------------------------------------------------------------------------

const MODEL_FIELDS: RecordField[] = [
  { name: "vendor", label: "Vendor" },
  { name: "model", label: "Model" },
  {
    name: "capacity",
    label: "Capacity",
    help: "Decimal, as printed: 1 TB, 500 GB or bytes",
    placeholder: "1 TB",
  },
  { name: "interface", label: "Interface", placeholder: "NVMe PCIe 4.0 x4" },
  { name: "form_factor", label: "Form factor", placeholder: "M.2 2280" },
  { name: "controller", label: "Controller", placeholder: "Phison E18" },
  { name: "nand", label: "NAND", placeholder: "Micron 176L TLC" },
  { name: "dram", label: "DRAM", placeholder: "1 GB LPDDR4" },
];
const MODEL_TEXT = ["vendor", "model", "interface", "form_factor", "controller", "nand", "dram"];

const modelValues = (m: CatalogModel | null): RecordValues => ({
  vendor: m?.vendor ?? "",
  model: m?.model ?? "",
  capacity: m ? String(m.capacity_bytes) : "",
  interface: m?.interface ?? "",
  form_factor: m?.form_factor ?? "",
  controller: m?.controller ?? "",
  nand: m?.nand ?? "",
  dram: m?.dram ?? "",
});

/** Form values as the api's fields; capacity typed as text becomes capacity_bytes. */
function modelPayload(values: RecordValues): { payload: Record<string, unknown>; errors: Errors } {
  const payload: Record<string, unknown> = {};
  const errors: Errors = {};
  for (const name of MODEL_TEXT) if (name in values) payload[name] = optionalText(values[name]);
  if ("capacity" in values) {
    const bytes = parseCapacity(values.capacity ?? "");
    if (bytes === null) errors.capacity = "is not a capacity: type 1 TB, 500 GB or a number of bytes";
    else payload.capacity_bytes = bytes;
  }
  return { payload, errors };
}

function ModelsSection({ mayEdit }: { mayEdit: boolean }) {
  const models = useModels();
  const create = useCreateModel();
  const update = useUpdateModel();
  const [editing, setEditing] = useState<number | null>(null);
  const [adding, setAdding] = useState(false);
  // capacity_bytes errors belong to the capacity input.
  const onCapacity = (r: RecordErrors | null) =>
    r?.fields.capacity_bytes ? { ...r, fields: { capacity: r.fields.capacity_bytes } } : r;

  return (
    <section className="section" aria-labelledby="models-heading">
      <div className="section__header">
        <h2 id="models-heading">Drive models</h2>
        <button type="button" className="button" disabled={!mayEdit} onClick={() => setAdding((a) => !a)}>
          {adding ? "Close" : "Add a model"}
        </button>
      </div>
      {adding && (
        <div className="section__body catalog-page__form">
          <RecordForm
            label="Add a model"
            fields={MODEL_FIELDS}
            initial={modelValues(null)}
            submitLabel="Add model"
            resetOnSave
            onSubmit={async (values) => {
              const missing = requireFields(values, ["vendor", "model", "capacity"]);
              const { payload, errors } = modelPayload(values);
              const local = invalid({ ...errors, ...missing });
              if (local) return local;
              return onCapacity(await save(() => create.mutateAsync(payload as never)));
            }}
          />
        </div>
      )}
      {models.isError && <ErrorBox error={models.error} title="Could not load the models" />}
      <div className="table-wrap">
        <table className="table catalog-page__models">
          <thead>
            <tr>
              <th>Vendor and model</th>
              <th className="num">Capacity</th>
              <th>Interface</th>
              <th>Controller</th>
              <th>NAND</th>
              <th>DRAM</th>
              <th>
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {models.isPending && <TableStateRow colSpan={7}>Loading models…</TableStateRow>}
            {models.data?.length === 0 && <TableStateRow colSpan={7}>No models yet.</TableStateRow>}
            {models.data?.map((m) =>
              editing === m.id ? (
                <tr key={m.id} className="catalog-page__editing">
                  <td colSpan={7}>
                    <RecordForm
                      label={`Edit model ${m.vendor} ${m.model}`}
                      fields={MODEL_FIELDS}
                      initial={modelValues(m)}
                      submitLabel="Save"
                      onCancel={() => setEditing(null)}
                      onSubmit={async (values) => {
                        const missing = requireFields(values, ["vendor", "model", "capacity"]);
                        const changes = changedValues(modelValues(m), values);
                        const { payload, errors } = modelPayload(changes);
                        const local = invalid({ ...errors, ...missing });
                        if (local) return local;
                        const result = onCapacity(
                          await save(() => update.mutateAsync({ id: m.id, changes: payload })),
                        );
                        if (!result) setEditing(null);
                        return result;
                      }}
                    />
                  </td>
                </tr>
              ) : (
                <tr key={m.id}>
                  <td>
                    <span className="catalog-page__name">
                      {m.vendor} {m.model}
                      {m.simulated && <SimulatedBadge emulated={m.emulated} />}
                      {m.embargoed && <EmbargoBadge />}
                    </span>
                  </td>
                  <td className="num">{m.capacity_label}</td>
                  <td>{m.interface ?? <span className="muted">—</span>}</td>
                  <td>{m.controller ?? <span className="muted">—</span>}</td>
                  <td>{m.nand ?? <span className="muted">—</span>}</td>
                  <td>{m.dram ?? <span className="muted">—</span>}</td>
                  <td className="catalog-page__actions">
                    <Link
                      to={`/models/${m.id}/firmware`}
                      aria-label={`Firmware history of ${m.vendor} ${m.model} ${m.capacity_label}`}
                    >
                      Firmware history
                    </Link>
                    <button
                      type="button"
                      className="button"
                      disabled={!mayEdit}
                      aria-label={`Edit ${m.vendor} ${m.model} ${m.capacity_label}`}
                      onClick={() => setEditing(m.id)}
                    >
                      Edit
                    </button>
                  </td>
                </tr>
              ),
            )}
          </tbody>
        </table>
      </div>
    </section>
  );
}

// --- Drive samples ---------------------------------------------------------------------

const driveValues = (d: Drive | null): RecordValues => ({
  serial: d?.serial ?? "",
  firmware: d?.firmware ?? "",
  short_name: d?.short_name ?? "",
  target_path: d?.target_path ?? "",
  model_id: d ? String(d.model.id) : "",
  bench: d?.bench.name ?? "",
});

function DrivesSection({ mayEdit }: { mayEdit: boolean }) {
  const drives = useDrives();
  const models = useModels();
  const benches = useBenches();
  const create = useCreateDrive();
  const update = useUpdateDrive();
  const [editing, setEditing] = useState<number | null>(null);
  const [adding, setAdding] = useState(false);
  const modelOptions = (models.data ?? []).map((m) => ({
    value: String(m.id),
    label: `${m.vendor} ${m.model} ${m.capacity_label}${m.simulated ? " (simulated)" : ""}`,
  }));
  const fields = (withBench: boolean): RecordField[] => [
    ...(withBench
      ? [
          {
            name: "bench",
            label: "Bench",
            kind: "select" as const,
            options: (benches.data ?? []).map((b) => ({ value: b.name, label: b.name })),
          },
        ]
      : []),
    { name: "model_id", label: "Model", kind: "select", options: modelOptions },
    { name: "serial", label: "Serial", mono: true, help: "As the drive reports it: checked before every run" },
    { name: "firmware", label: "Firmware", mono: true },
    {
      name: "short_name",
      label: "Short name",
      placeholder: "990 PRO 2TB",
      help: "What charts, legends and exports call the drive (40 characters at most)",
    },
    { name: "target_path", label: "Target", mono: true, placeholder: "/dev/nvme1n1" },
    ...(withBench
      ? [
          {
            name: "logical_sector",
            label: "Logical sector",
            kind: "select" as const,
            options: [
              { value: "512", label: "512 B" },
              { value: "4096", label: "4096 B" },
            ],
          },
        ]
      : []),
  ];

  return (
    <section className="section" aria-labelledby="drives-heading">
      <div className="section__header">
        <h2 id="drives-heading">Drive samples</h2>
        <button type="button" className="button" disabled={!mayEdit} onClick={() => setAdding((a) => !a)}>
          {adding ? "Close" : "Add a drive"}
        </button>
      </div>
      {adding && (
        <div className="section__body catalog-page__form">
          <RecordForm
            label="Add a drive"
            fields={fields(true)}
            initial={{ ...driveValues(null), logical_sector: "512" }}
            submitLabel="Add drive"
            resetOnSave
            onSubmit={async (values) => {
              const local = invalid(requireFields(values, ["bench", "model_id", "serial", "target_path"]));
              if (local) return local;
              const model = models.data?.find((m) => String(m.id) === values.model_id);
              if (!model) return { fields: { model_id: "choose a model" } };
              return save(() =>
                create.mutateAsync({
                  bench: values.bench!,
                  target_path: values.target_path!.trim(),
                  serial: values.serial!.trim(),
                  firmware: optionalText(values.firmware),
                  short_name: optionalText(values.short_name),
                  vendor: model.vendor,
                  model: model.model,
                  capacity_bytes: model.capacity_bytes,
                  interface: model.interface,
                  simulated: model.simulated,
                  logical_sector: Number(values.logical_sector || 512),
                }),
              );
            }}
          />
        </div>
      )}
      {drives.isError && <ErrorBox error={drives.error} title="Could not load the drives" />}
      <div className="table-wrap">
        <table className="table">
          <thead>
            <tr>
              <th className="num">ID</th>
              <th>Model</th>
              <th>Serial</th>
              <th>Firmware</th>
              <th>Target</th>
              <th>Bench</th>
              <th>
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {drives.isPending && <TableStateRow colSpan={7}>Loading drives…</TableStateRow>}
            {drives.data?.length === 0 && <TableStateRow colSpan={7}>No drives yet.</TableStateRow>}
            {drives.data?.map((d) =>
              editing === d.id ? (
                <tr key={d.id} className="catalog-page__editing">
                  <td colSpan={7}>
                    {d.active_run_id !== null && (
                      <p className="muted" role="note">
                        Run #{d.active_run_id} is using this drive: only its short name can change
                        until the run ends.
                      </p>
                    )}
                    <RecordForm
                      label={`Edit drive ${d.id}`}
                      fields={fields(false).filter(
                        (f) => d.active_run_id === null || f.name === "short_name",
                      )}
                      initial={driveValues(d)}
                      submitLabel="Save"
                      onCancel={() => setEditing(null)}
                      onSubmit={async (values) => {
                        if (d.active_run_id !== null) {
                          // During a run the api takes the short name only.
                          const changes = changedValues(driveValues(d), values);
                          if (!("short_name" in changes)) {
                            setEditing(null);
                            return null;
                          }
                          const result = await save(() =>
                            update.mutateAsync({
                              id: d.id,
                              changes: { short_name: optionalText(changes.short_name) },
                            }),
                          );
                          if (!result) setEditing(null);
                          return result;
                        }
                        const local = invalid(requireFields(values, ["model_id", "serial", "target_path"]));
                        if (local) return local;
                        const changes = changedValues(driveValues(d), values);
                        const payload: Record<string, unknown> = {};
                        if ("serial" in changes) payload.serial = changes.serial!.trim();
                        if ("target_path" in changes) payload.target_path = changes.target_path!.trim();
                        if ("firmware" in changes) payload.firmware = optionalText(changes.firmware);
                        if ("short_name" in changes) payload.short_name = optionalText(changes.short_name);
                        if ("model_id" in changes) payload.model_id = Number(changes.model_id);
                        const result = await save(() => update.mutateAsync({ id: d.id, changes: payload }));
                        if (!result) setEditing(null);
                        return result;
                      }}
                    />
                  </td>
                </tr>
              ) : (
                <tr key={d.id}>
                  <td className="num mono">{d.id}</td>
                  <td>
                    <span className="catalog-page__name">
                      {d.model.vendor} {d.model.model} {formatCapacity(d.model.capacity_bytes)}
                      {d.simulated && <SimulatedBadge emulated={d.emulated} />}
                      {d.short_name && <span className="cell-sub">shown as “{d.short_name}”</span>}
                    </span>
                  </td>
                  <td className="mono">{d.serial}</td>
                  <td className="mono">{d.firmware ?? <span className="muted">—</span>}</td>
                  <td className="mono">{d.target_path}</td>
                  <td>{d.bench.name}</td>
                  <td className="catalog-page__actions">
                    <button
                      type="button"
                      className="button"
                      disabled={!mayEdit}
                      title={
                        d.active_run_id !== null
                          ? `In use by run #${d.active_run_id}: only the short name can change`
                          : undefined
                      }
                      aria-label={`Edit drive ${d.id} (${d.serial})`}
                      onClick={() => setEditing(d.id)}
                    >
                      Edit
                    </button>
                  </td>
                </tr>
              ),
            )}
          </tbody>
        </table>
      </div>
    </section>
  );
}

// --- Prices ----------------------------------------------------------------------------

const PRICE_HEADER = "vendor,model,capacity_gb,retailer,price,currency,observed_on,source";

// A correction of an observation: the model and capacity stay (another product's price is a
// new observation).
const PRICE_EDIT_FIELDS: RecordField[] = [
  { name: "retailer", label: "Retailer" },
  { name: "price", label: "Price" },
  { name: "currency", label: "Currency", help: "ISO 4217", mono: true },
  { name: "observed_on", label: "Seen on", kind: "date" },
  { name: "source", label: "Source", help: "URL of the page, or a citation" },
];

const priceValues = (p: Price): RecordValues => ({
  retailer: p.retailer,
  price: p.price.toFixed(2),
  currency: p.currency,
  observed_on: p.observed_on,
  source: p.source ?? "",
});

function PriceRowActions({ price, mayEdit, onEdit }: { price: Price; mayEdit: boolean; onEdit: () => void }) {
  const remove = useDeletePrice();
  const [confirming, setConfirming] = useState(false);
  const what = `${price.vendor} ${price.model} at ${price.retailer} on ${price.observed_on}`;
  return (
    <td className="catalog-page__actions">
      <button type="button" className="button" disabled={!mayEdit} aria-label={`Edit the price of ${what}`} onClick={onEdit}>
        Edit
      </button>
      {confirming ? (
        <>
          <button
            type="button"
            className="button button--danger"
            disabled={remove.isPending}
            aria-label={`Confirm: delete the price of ${what}`}
            onClick={() => remove.mutate(price.id, { onSettled: () => setConfirming(false) })}
          >
            Delete it
          </button>
          <button type="button" className="button" onClick={() => setConfirming(false)}>
            Keep
          </button>
        </>
      ) : (
        <button
          type="button"
          className="button"
          disabled={!mayEdit}
          aria-label={`Delete the price of ${what}`}
          onClick={() => setConfirming(true)}
        >
          Delete
        </button>
      )}
      {remove.isError && <ErrorBox error={remove.error} title="Could not delete the price" />}
    </td>
  );
}

function PricesSection({ mayEdit }: { mayEdit: boolean }) {
  const prices = usePrices();
  const models = useModels();
  const add = useAddPrice();
  const update = useUpdatePrice();
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<number | null>(null);
  const fields: RecordField[] = [
    {
      name: "model_id",
      label: "Model",
      kind: "select",
      options: (models.data ?? []).map((m) => ({
        value: String(m.id),
        label: `${m.vendor} ${m.model} ${m.capacity_label}`,
      })),
    },
    { name: "retailer", label: "Retailer", placeholder: "Newegg" },
    { name: "price", label: "Price", placeholder: "89.99" },
    { name: "currency", label: "Currency", help: "ISO 4217", mono: true },
    { name: "observed_on", label: "Seen on", kind: "date" },
    { name: "source", label: "Source", help: "URL of the page, or a citation" },
  ];

  return (
    <section className="section" aria-labelledby="prices-heading">
      <div className="section__header">
        <h2 id="prices-heading">Prices</h2>
        <span className="catalog-page__header-actions">
          <a className="button" href={`${API_BASE}/prices.csv`} download>
            Export CSV
          </a>
          <button type="button" className="button" disabled={!mayEdit} onClick={() => setAdding((a) => !a)}>
            {adding ? "Close" : "Add a price"}
          </button>
        </span>
      </div>
      {adding && (
        <div className="section__body catalog-page__form">
          <RecordForm
            label="Add a price"
            fields={fields}
            initial={{ model_id: "", retailer: "", price: "", currency: "USD", observed_on: today(), source: "" }}
            submitLabel="Add price"
            resetOnSave
            onSubmit={async (values) => {
              const local = invalid(
                requireFields(values, ["model_id", "retailer", "price", "currency", "observed_on", "source"]),
              );
              if (local) return local;
              return save(() =>
                add.mutateAsync({
                  model_id: Number(values.model_id),
                  retailer: values.retailer!.trim(),
                  price: values.price!.trim() as unknown as number,
                  currency: values.currency!.trim(),
                  observed_on: values.observed_on!,
                  source: values.source!.trim(),
                }),
              );
            }}
          />
        </div>
      )}
      <div className="section__body catalog-page__form">
        <PriceImport disabled={!mayEdit} />
      </div>
      {prices.isError && <ErrorBox error={prices.error} title="Could not load the prices" />}
      <div className="table-wrap">
        <table className="table catalog-page__prices">
          <thead>
            <tr>
              <th>Model</th>
              <th className="num">Capacity</th>
              <th>Retailer</th>
              <th className="num">Price</th>
              <th>Seen on</th>
              <th>Source</th>
              <th>
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {prices.isPending && <TableStateRow colSpan={7}>Loading prices…</TableStateRow>}
            {prices.data?.length === 0 && (
              <TableStateRow colSpan={7}>No prices yet: add one or import a CSV.</TableStateRow>
            )}
            {prices.data?.map((p) =>
              editing === p.id ? (
                <tr key={p.id} className="catalog-page__editing">
                  <td colSpan={7}>
                    <RecordForm
                      label={`Correct the price of ${p.vendor} ${p.model} at ${p.retailer}`}
                      fields={PRICE_EDIT_FIELDS}
                      initial={priceValues(p)}
                      submitLabel="Save"
                      onCancel={() => setEditing(null)}
                      onSubmit={async (values) => {
                        const local = invalid(
                          requireFields(values, ["retailer", "price", "currency", "observed_on", "source"]),
                        );
                        if (local) return local;
                        const changes = changedValues(priceValues(p), values);
                        const result = await save(() => update.mutateAsync({ id: p.id, changes: changes as never }));
                        if (!result) setEditing(null);
                        return result;
                      }}
                    />
                  </td>
                </tr>
              ) : (
              <tr key={p.id}>
                <td>
                  {p.vendor} {p.model}
                </td>
                <td className="num">{formatCapacity(p.capacity_bytes)}</td>
                <td>{p.retailer}</td>
                <td className="num">
                  {p.price.toFixed(2)} <span className="muted">{p.currency}</span>
                </td>
                <td className="nowrap">{p.observed_on}</td>
                <td className="catalog-page__source">
                  {p.source && /^https?:\/\//.test(p.source) ? (
                    <a href={p.source} target="_blank" rel="noreferrer noopener">
                      {p.source}
                    </a>
                  ) : (
                    (p.source ?? <span className="muted">—</span>)
                  )}
                </td>
                <PriceRowActions price={p} mayEdit={mayEdit} onEdit={() => setEditing(p.id)} />
              </tr>
              ),
            )}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function PriceImport({ disabled }: { disabled: boolean }) {
  const importer = useImportPrices();
  const [text, setText] = useState("");
  const [result, setResult] = useState<PriceImportResult | null>(null);
  const problems = importProblems(importer.error);

  const onFile = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    if (file) setText(await file.text());
  };
  const submit = () => {
    setResult(null);
    importer.mutate(text, { onSuccess: (r) => setResult(r) });
  };

  return (
    <details className="catalog-page__import" open={text !== "" || undefined}>
      <summary>Import prices from CSV</summary>
      <div className="catalog-page__import-body">
        <p className="muted">
          Header <code>{PRICE_HEADER}</code>. Every row is checked first: if one is bad, nothing is
          imported. Models not yet in the catalog are added.
        </p>
        <FormField label="CSV file">
          <input type="file" accept=".csv,text/csv" disabled={disabled} onChange={(e) => void onFile(e)} />
        </FormField>
        <FormField
          label="or paste the CSV"
          error={importer.isError && problems.length === 0 ? importer.error.message : null}
        >
          <textarea
            name="prices_csv"
            value={text}
            disabled={disabled}
            placeholder={PRICE_HEADER}
            spellCheck={false}
            onChange={(e) => {
              importer.reset();
              setText(e.target.value);
            }}
          />
        </FormField>
        {problems.length > 0 && (
          <div className="catalog-page__problems" role="alert">
            <strong>Nothing was imported: {problems.length} bad row{problems.length === 1 ? "" : "s"}</strong>
            <ul>
              {problems.map((p) => (
                <li key={p.line}>
                  line {p.line}: {p.problems.join("; ")}
                </li>
              ))}
            </ul>
          </div>
        )}
        {result && (
          <p className="catalog-page__imported" role="status">
            Imported {result.imported} of {result.rows} row{result.rows === 1 ? "" : "s"}
            {result.duplicates > 0 ? `, ${result.duplicates} already stored` : ""}
            {result.created_models.length > 0
              ? `; added ${result.created_models.map((m) => `${m.vendor} ${m.model}`).join(", ")} to the catalog`
              : ""}
            .
          </p>
        )}
        <div>
          <button
            type="button"
            className="button button--primary"
            disabled={disabled || !text.trim() || importer.isPending}
            onClick={submit}
          >
            {importer.isPending ? "Importing…" : "Import"}
          </button>
        </div>
      </div>
    </details>
  );
}
