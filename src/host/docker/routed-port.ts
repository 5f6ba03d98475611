import type { DockerPort } from './docker-port.js';

/**
 * One DockerPort over several engines: calls about a container go to the engine `engineOf` names
 * for it (a remote car's host), everything else (images, networks, listings, ping) to `local`.
 * Whatever watches, execs into, logs or removes containers by name then needs no host of its own.
 */
export function routedDocker(local: DockerPort, engineOf: (container: string) => DockerPort | undefined): DockerPort {
  // a container is also named by the id its engine gave it (an undoer removes what it inspected, by id)
  const byId = new Map<string, DockerPort>();
  const on = (nameOrId: string) => engineOf(nameOrId) ?? byId.get(nameOrId) ?? local;
  const learn = <T extends { id: string } | undefined>(engine: DockerPort, found: T): T => {
    if (found && engine !== local) byId.set(found.id, engine);
    return found;
  };
  return {
    ping: () => local.ping(),
    inspectImage: (tag) => local.inspectImage(tag),
    buildImage: (request, onOutput) => local.buildImage(request, onOutput),
    listImages: (labels, opts) => local.listImages(labels, opts),
    removeImage: (id) => local.removeImage(id),
    imageIdsInUse: () => local.imageIdsInUse(),
    createNetwork: (spec) => local.createNetwork(spec),
    inspectNetwork: (name) => local.inspectNetwork(name),
    removeNetwork: (name) => local.removeNetwork(name),
    listNetworks: (labels) => local.listNetworks(labels),
    listContainers: (labels) => local.listContainers(labels),
    saveImage: (name) => local.saveImage(name),
    loadImage: (tar) => local.loadImage(tar),
    runToCompletion: (spec, opts) => local.runToCompletion(spec, opts),
    createContainer: async (spec) => learn(on(spec.name), await on(spec.name).createContainer(spec)),
    startContainer: (name) => on(name).startContainer(name),
    stopContainer: (name, timeout) => on(name).stopContainer(name, timeout),
    removeContainer: (name, opts) => on(name).removeContainer(name, opts),
    inspectContainer: async (name) => learn(on(name), await on(name).inspectContainer(name)),
    exec: (name, cmd, opts) => on(name).exec(name, cmd, opts),
    waitContainer: (name, opts) => on(name).waitContainer(name, opts),
    logs: async (name) => on(name).logs?.(name),
    putFiles: async (name, dir, files) => {
      const engine = on(name);
      if (!engine.putFiles) throw new Error(`the engine of ${name} cannot take files`);
      await engine.putFiles(name, dir, files);
    },
  };
}
