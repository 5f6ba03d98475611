// cavsim lock-step channel program: ns-3 in virtual time, driven over stdin/stdout by the
// simulated runtime (src/channel/ns3/lockstep/). One node per vehicle on a csma, latency or wifi-80211p
// channel; the parent feeds positions and transmissions with their exact virtual times, advances
// ns-3 to the end of each step and reads back what each frame did at each intended receiver.
//
// Protocol (all times integer nanoseconds; docs/ns3-lockstep-protocol.md):
//   in   P <node> <t> <x> <y> <vx> <vy>       position [um] and velocity [um/s] of a node from time t
//        T <frame> <node> <dest|-1> <bytes> <t> transmit `bytes` of UDP payload at time t (-1: broadcast)
//        A <t>                                run every event at or before t, then report
//        Q (or end of input)                  exit
//   out  READY
//        R <frame> <node> <t> <rx_dbm|nan> <los:1|0|->       delivered to node at t
//        L <frame> <node> <t> <reason> <rx_dbm|nan> <los>    lost at node; reason as in src/channel/frames.ts
//        B <node> <end> <busy>                wifi with --cbrWindow: the node's PHY was busy `busy` ns of the window ending at `end`
//        D <next>                             end of a report: time of the next pending event, -1 if none
// Built twice: without CAVSIM_WIFI it links only ns-3's core, network and csma modules and is
// ready about 17 ms after it starts instead of 40 (most runs use a wired channel); with it, also
// wifi-80211p. lib/rng-stream-start.h takes 4-8 ms off either start.
#include "lib/csma-channel.h"
#include "lib/frame-outcomes.h"
#include "lib/latency-channel.h"
#include "lib/rng-stream-start.h"
#ifdef CAVSIM_WIFI
#include "lib/channel-busy.h"
#include "lib/wifi-80211p.h"
#include "lib/wifi-outcomes.h"

#include "ns3/mobility-module.h"
#include "ns3/wifi-module.h"
#endif

#include "ns3/core-module.h"
#include "ns3/csma-module.h"
#include "ns3/network-module.h"

#include <cmath>
#include <cstdio>
#include <fcntl.h>
#include <unistd.h>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

// MapScheduler whose instance the program can ask for the next pending event.
class PeekableScheduler : public MapScheduler
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("cavsim::PeekableScheduler").SetParent<MapScheduler>().AddConstructor<PeekableScheduler>();
        return tid;
    }

    PeekableScheduler() { Instance() = this; }

    static PeekableScheduler*& Instance()
    {
        static PeekableScheduler* instance = nullptr;
        return instance;
    }

    int64_t NextTimestamp() { return IsEmpty() ? -1 : static_cast<int64_t>(PeekNext().key.m_ts); }
};

// Protocol numbers carried by the raw frames; no IP stack runs, the sizes stand for UDP/IPv4.
const uint16_t kProtocol = 0x88B5; // IEEE local experimental ethertype
const uint32_t kUdpIpBytes = 28;
const uint32_t kEthernetBytes = 18;

std::string g_kind;
NodeContainer g_nodes;
NetDeviceContainer g_devices;
std::ostringstream g_out;
#ifdef CAVSIM_WIFI
cavsim::ChannelBusyMeter g_busy;
#endif

// Outcomes as protocol lines: R for a delivery, L with the reason for a loss.
void
WriteOutcome(const cavsim::TrackedFrame& frame, uint32_t node, const std::string* reason, const std::string& power, const std::string& los)
{
    g_out << (reason ? "L " : "R ") << frame.number << ' ' << node << ' ' << Simulator::Now().GetNanoSeconds() << ' ';
    if (reason)
    {
        g_out << *reason << ' ';
    }
    g_out << power << ' ' << los << '\n';
}

bool
Received(Ptr<NetDevice> device, Ptr<const Packet> packet, uint16_t, const Address&, const Address&, NetDevice::PacketType)
{
    cavsim::ReportDelivered(packet->GetUid(), device->GetNode()->GetId());
    return true;
}

void
Transmit(int64_t number, uint32_t from, int32_t dest, uint32_t bytes)
{
    uint32_t size = bytes + kUdpIpBytes + (g_kind == "latency" ? kEthernetBytes : 0);
    Ptr<Packet> packet = Create<Packet>(size);
    cavsim::TrackedFrame frame;
    frame.number = number;
    frame.from = from;
    frame.broadcast = dest < 0;
    for (uint32_t n = 0; n < g_nodes.GetN(); ++n)
    {
        if (n != from && (dest < 0 || static_cast<uint32_t>(dest) == n))
        {
            frame.open.insert(n);
        }
    }
    cavsim::TrackFrame(packet->GetUid(), frame);
    Ptr<NetDevice> device = g_devices.Get(from);
    Address to = dest < 0 ? device->GetBroadcast() : g_devices.Get(dest)->GetAddress();
    if (!device->Send(packet, to, kProtocol))
    {
        cavsim::LostAtEveryReceiver(packet->GetUid(), "queue-drop");
    }
}

#ifdef CAVSIM_WIFI
void
SetMotion(uint32_t node, double x, double y, double vx, double vy, double z)
{
    Ptr<ConstantVelocityMobilityModel> m = g_nodes.Get(node)->GetObject<ConstantVelocityMobilityModel>();
    m->SetPosition(Vector(x, y, z));
    m->SetVelocity(Vector(vx, vy, 0));
}
#endif

// Runs every event at or before t. An event scheduled at t while t is being processed has a
// later uid than the stop event, so repeat until nothing at or before t is left.
void
AdvanceTo(int64_t t)
{
    PeekableScheduler* scheduler = PeekableScheduler::Instance();
    while (scheduler->NextTimestamp() >= 0 && scheduler->NextTimestamp() <= t)
    {
        Simulator::Stop(NanoSeconds(t) - Simulator::Now());
        Simulator::Run();
    }
}

Time
Delay(int64_t t)
{
    Time at = NanoSeconds(t);
    if (at < Simulator::Now())
    {
        std::ostringstream why;
        why << "time " << t << " ns is before ns-3's clock " << Simulator::Now().GetNanoSeconds() << " ns";
        throw std::invalid_argument(why.str());
    }
    return at - Simulator::Now();
}

void
Fail(const std::string& message)
{
    std::cerr << "lockstep-channel: " << message << std::endl;
    std::exit(2);
}

// Everything one run left behind, so the next run in a serving process starts as a fresh one would.
void
ResetRun()
{
    Simulator::Destroy();
    g_nodes = NodeContainer();
    g_devices = NetDeviceContainer();
    cavsim::Outcomes().Reset();
#ifdef CAVSIM_WIFI
    g_busy.Reset();
#endif
    g_out.str("");
}

// One run: its settings from `argv`, then commands until Q (or the end of input, which returns false).
bool
RunOnce(int argc, char* argv[])
{
    uint32_t nodeCount = 0;
    uint32_t seed = 1;
    uint32_t run = 1;
    int64_t delayNs = 10000000;
    int64_t jitterNs = 0;
    double dataRate = 100e6;
    double loss = 0;
#ifdef CAVSIM_WIFI
    cavsim::WifiSettings wifi;
    int64_t busyWindowNs = 0;
#endif

    CommandLine cmd(__FILE__);
    cmd.AddValue("channel", "csma | latency | wifi-80211p", g_kind);
    cmd.AddValue("nodes", "number of vehicles", nodeCount);
    cmd.AddValue("seed", "ns-3 RNG seed", seed);
    cmd.AddValue("run", "ns-3 RNG run number", run);
    cmd.AddValue("delay", "csma, latency: one-way delay [ns]", delayNs);
    cmd.AddValue("jitter", "latency: uniform extra delay bound [ns]", jitterNs);
    cmd.AddValue("dataRate", "csma, latency: data rate [bit/s]", dataRate);
    cmd.AddValue("loss", "csma, latency: per-receiver loss probability", loss);
#ifdef CAVSIM_WIFI
    cavsim::AddWifiFlags(cmd, wifi);
    cmd.AddValue("cbrWindow", "wifi: report each node's channel busy time per window of this length [ns]; 0 for none", busyWindowNs);
#endif
    cmd.Parse(argc, argv);
#ifdef CAVSIM_WIFI
    cavsim::ApplyCarrierSenseThreshold(wifi);
#endif

    if (nodeCount == 0)
    {
        Fail("--nodes must be at least 1");
    }
    if (g_kind != "csma" && g_kind != "latency" && g_kind != "wifi-80211p")
    {
        Fail("--channel must be csma, latency or wifi-80211p, not '" + g_kind + "'");
    }
    RngSeedManager::SetSeed(seed);
    RngSeedManager::SetRun(run);
    cavsim::Outcomes().sink = &WriteOutcome;
    ObjectFactory schedulerFactory;
    schedulerFactory.SetTypeId(PeekableScheduler::GetTypeId());
    Simulator::SetScheduler(schedulerFactory);

    g_nodes.Create(nodeCount);
#ifdef CAVSIM_WIFI
    MobilityHelper mobility;
    mobility.SetMobilityModel("ns3::ConstantVelocityMobilityModel");
    mobility.Install(g_nodes);
    cavsim::WifiChannelParts propagation;
#endif
    int64_t stream = 100;
    if (g_kind == "csma")
    {
        g_devices = cavsim::InstallCsmaChannel(g_nodes, NanoSeconds(delayNs), DataRate(static_cast<uint64_t>(dataRate)), loss, stream);
        cavsim::ConnectWiredOutcomes(g_devices, true);
    }
    else if (g_kind == "latency")
    {
        cavsim::LatencySettings s{NanoSeconds(delayNs), NanoSeconds(jitterNs), DataRate(static_cast<uint64_t>(dataRate)), loss};
        g_devices = cavsim::InstallLatencyChannel(g_nodes, s, stream);
        cavsim::ConnectWiredOutcomes(g_devices, false);
    }
    else
    {
#ifndef CAVSIM_WIFI
        Fail("this build has no wifi-80211p; compile with -DCAVSIM_WIFI");
#else
        try
        {
            propagation = cavsim::BuildPropagation(wifi);
        }
        catch (const std::exception& e)
        {
            Fail(e.what());
        }
        propagation.last->SetNext(CreateObject<cavsim::PowerProbe>());
        g_devices = cavsim::InstallWifi80211p(g_nodes, wifi, propagation.first);
        WifiHelper().AssignStreams(g_devices, stream);
        propagation.first->AssignStreams(stream + 1000);
        cavsim::ConnectWifiOutcomes(g_devices, propagation.grid.get(), wifi);
        if (busyWindowNs > 0)
        {
            g_busy.Connect(g_devices, busyWindowNs);
        }
#endif
    }
    for (uint32_t i = 0; i < nodeCount; ++i)
    {
        g_nodes.Get(i)->RegisterProtocolHandler(MakeCallback(&Received), kProtocol, g_devices.Get(i));
#ifdef CAVSIM_WIFI
        SetMotion(i, 0, 0, 0, 0, wifi.antennaHeight);
#endif
    }

    std::cout << "READY\n" << std::flush;
    std::string line;
    bool quit = false;
    while (!quit && std::getline(std::cin, line))
    {
        std::istringstream in(line);
        char op = 0;
        in >> op;
        try
        {
            if (op == 'P')
            {
                uint32_t node;
                int64_t t, x, y, vx, vy; // micrometres and micrometres per second
                if (!(in >> node >> t >> x >> y >> vx >> vy) || node >= nodeCount)
                {
                    throw std::invalid_argument("bad P line");
                }
#ifdef CAVSIM_WIFI
                Simulator::Schedule(Delay(t), &SetMotion, node, x * 1e-6, y * 1e-6, vx * 1e-6, vy * 1e-6, wifi.antennaHeight);
#endif
            }
            else if (op == 'T')
            {
                int64_t number, t;
                uint32_t node, bytes;
                int32_t dest;
                if (!(in >> number >> node >> dest >> bytes >> t) || node >= nodeCount || dest >= static_cast<int32_t>(nodeCount) || dest == static_cast<int32_t>(node))
                {
                    throw std::invalid_argument("bad T line");
                }
                Simulator::Schedule(Delay(t), &Transmit, number, node, dest, bytes);
            }
            else if (op == 'A')
            {
                int64_t t;
                if (!(in >> t))
                {
                    throw std::invalid_argument("bad A line");
                }
                Delay(t);
                AdvanceTo(t);
#ifdef CAVSIM_WIFI
                if (g_busy.Active())
                {
                    g_busy.Close(t, [](uint32_t node, int64_t end, int64_t busy) { g_out << "B " << node << ' ' << end << ' ' << busy << '\n'; });
                }
#endif
                g_out << "D " << PeekableScheduler::Instance()->NextTimestamp() << '\n';
                std::cout << g_out.str() << std::flush;
                g_out.str("");
            }
            else if (op == 'Q')
            {
                quit = true;
            }
            else
            {
                throw std::invalid_argument("unknown command");
            }
        }
        catch (const std::exception& e)
        {
            Fail(std::string(e.what()) + ": " + line);
        }
    }
    ResetRun();
    return quit;
}

// "C" and the run's arguments, tab-separated, as an argv for CommandLine.
std::vector<std::string>
ConfigArguments(const std::string& line)
{
    std::vector<std::string> args{"lockstep-channel"};
    std::istringstream fields(line.substr(1));
    std::string field;
    while (std::getline(fields, field, '\t'))
    {
        if (!field.empty())
        {
            args.push_back(field);
        }
    }
    return args;
}

} // namespace

// With --serve the process outlives a run: it reads "C\t<arg>\t<arg>..." and runs with those
// arguments, and after that run's Q waits for the next C. Library loading and ns-3's random-stream
// tables (most of its ~30 ms start) are then paid once per process instead of once per run.
// Linux's default ceiling for an unprivileged process (/proc/sys/fs/pipe-max-size).
constexpr int kStdoutPipeBytes = 1 << 20;

int
main(int argc, char* argv[])
{
    std::ios::sync_with_stdio(false);
    // In a run that only logs its outcomes Node reads them between batches of steps; a 64 KiB pipe
    // (a few ms of 802.11p outcomes at 100 cars) would stall ns-3 in between. Best effort.
    fcntl(STDOUT_FILENO, F_SETPIPE_SZ, kStdoutPipeBytes);
    if (argc == 2 && std::string(argv[1]) == "--serve")
    {
        std::string line;
        while (std::getline(std::cin, line))
        {
            if (line == "Q")
            {
                continue; // a client's end of a run that never started
            }
            if (line.empty() || line[0] != 'C')
            {
                Fail("a serving process expects C <arguments>, not: " + line);
            }
            std::vector<std::string> args = ConfigArguments(line);
            std::vector<char*> pointers;
            for (auto& a : args)
            {
                pointers.push_back(a.data());
            }
            if (!RunOnce(static_cast<int>(pointers.size()), pointers.data()))
            {
                break;
            }
        }
        return 0;
    }
    RunOnce(argc, argv);
    return 0;
}
