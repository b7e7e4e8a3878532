{
  description = "pattern-analysis-service: development shell (Node 20, Chromium, Prometheus)";

  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-24.11";

  outputs = { self, nixpkgs }:
    let
      systems = [ "x86_64-linux" "aarch64-linux" "x86_64-darwin" "aarch64-darwin" ];
      forAll = f: nixpkgs.lib.genAttrs systems (system: f nixpkgs.legacyPackages.${system});
    in {
      devShells = forAll (pkgs: {
        default = pkgs.mkShell {
          packages = [
            pkgs.nodejs_20
            pkgs.chromium      # docs tests drive it through playwright-core
            pkgs.prometheus    # promtool check metrics, and a real scraper
            pkgs.redis         # shared state for several replicas (SVC_REDIS_URL) in the tests
            pkgs.postgresql    # the runs store the replicas share (SVC_DATABASE_URL): ephemeral clusters in the tests
            pkgs.git
          ];
          shellHook = ''
            export PATH="$PWD/node_modules/.bin:$PATH"
            echo "pattern-analysis-service dev shell: node $(node --version)"
          '';
        };
      });
    };
}
